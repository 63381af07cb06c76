import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.js';
import { serverAddressOf } from '../../lib/server-address.js';
import { RelayError } from '../errors.js';
import { callerOf } from '../pipeline/authenticate-first.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { VideoAsk } from '../providers/shared/video-task.js';
import type { RelayState } from '../state.js';
import { ownVideo, submitVideo } from '../tasks/video.js';
import { geminiOperationOf, secondsOf, sizeOf, taskIdOfGemini, veoShapeOf } from './video-objects.js';
import { sendVideoContent } from './videos.js';
import type { Json } from '@modelgate/shared';
import { canonicalPath } from '../../lib/relay-paths.js';

const badRequest = (message: string) => new RelayError(400, 'INVALID_ARGUMENT', message, false, 'invalid_request_error');
const maxPrompt = 32_000;
/** Veo's default length. */
const defaultSeconds = 8;

const serverAddress = (ctx: AppContext) => serverAddressOf(ctx.options);

const taskGate = (ctx: AppContext, caller: RelayCaller): RelayCaller => {
  if (!ctx.options.bool('TaskEnabled')) throw new RelayError(403, 'task_disabled', '任务功能未启用');
  return caller;
};

/** A predictLongRunning body (`instances[0]` and `parameters`, as @google/genai's generateVideos sends it) → the video to make. */
export function geminiVideoAskOf(model: string, body: Json): VideoAsk & { model: string; size: string } {
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length !== 1 || !instances[0] || typeof instances[0] !== 'object')
    throw badRequest('instances 必须是只含一个对象的数组');
  const instance = instances[0] as Json;
  const prompt = typeof instance.prompt === 'string' ? instance.prompt : '';
  if (!prompt.trim() || prompt.length > maxPrompt) throw badRequest(`prompt 不能为空，且不超过 ${maxPrompt} 个字符`);
  const parameters = (body.parameters ?? {}) as Json;
  if (typeof parameters !== 'object' || Array.isArray(parameters)) throw badRequest('parameters 必须是对象');
  const count = parameters.sampleCount ?? parameters.numberOfVideos;
  if (count !== undefined && count !== 1) throw badRequest('每个任务只生成一个视频（sampleCount 为 1）');
  const aspectRatio = typeof parameters.aspectRatio === 'string' ? parameters.aspectRatio : undefined;
  const resolution = typeof parameters.resolution === 'string' ? parameters.resolution : undefined;
  const size = sizeOf(aspectRatio, resolution);
  const ask: VideoAsk & { model: string; size: string } = {
    model,
    prompt,
    size,
    seconds: secondsOf(parameters.durationSeconds, defaultSeconds),
    ...veoShapeOf(size),
  };
  if (typeof parameters.negativePrompt === 'string' && parameters.negativePrompt)
    ask.negativePrompt = parameters.negativePrompt.slice(0, maxPrompt);
  const image = instance.image as Json | undefined;
  if (image !== undefined) {
    const data = image?.bytesBase64Encoded ?? image?.imageBytes;
    const mimeType = image?.mimeType;
    if (
      typeof data !== 'string' ||
      !/^[A-Za-z0-9+/=]+$/.test(data) ||
      (mimeType !== 'image/png' && mimeType !== 'image/jpeg' && mimeType !== 'image/webp')
    ) {
      throw badRequest('image 必须是 PNG、JPEG 或 WebP 图片的 base64 数据');
    }
    ask.image = { mimeType, data };
  }
  return ask;
}

/** POST …/models/{model}:predictLongRunning: the video is submitted, and its operation named with the gateway's id. */
export async function submitGeminiVideo(
  ctx: AppContext,
  relay: RelayState,
  request: FastifyRequest,
  model: string,
  body: Json,
): Promise<Json> {
  const caller = taskGate(ctx, callerOf(request));
  const ask = geminiVideoAskOf(model, body);
  const taskId = await submitVideo(ctx, relay, caller, ask, {
    ip: request.ip,
    path: canonicalPath(request.url),
    headers: request.headers,
    isGone: () => request.raw.destroyed,
  });
  return geminiOperationOf(await ownVideo(ctx, caller.user.id, taskId), serverAddress(ctx));
}

/** `{model}/operations/{id}` of a GET …/models/* path, or null. */
const operationPath = /^[\w.-]{1,100}\/operations\/([a-z0-9]{1,64})$/;
/** The video id of a `{id}:download` path (@google/genai puts the whole URI after `files/` when it is not https: the last id counts). */
const filePath = /(?:^|\/)([a-z0-9]{1,64}):download/g;

/** GET /v1beta/models/{model}/operations/{id} (the operation's state) and GET /v1beta/files/{id}:download (the video). */
export function registerGeminiVideoReads(
  scope: FastifyInstance,
  ctx: AppContext,
  relay: RelayState,
  byGoogleKey: onRequestAsyncHookHandler,
): void {
  scope.get('/v1beta/models/*', { onRequest: byGoogleKey }, async (request) => {
    const caller = taskGate(ctx, callerOf(request));
    const match = operationPath.exec((request.params as Record<string, string>)['*'] ?? '');
    if (!match) throw new RelayError(404, 'NOT_FOUND', '未知的路径');
    return geminiOperationOf(await ownVideo(ctx, caller.user.id, taskIdOfGemini(match[1]!)), serverAddress(ctx));
  });
  scope.get('/v1beta/files/*', { onRequest: byGoogleKey }, async (request, reply) => {
    const caller = taskGate(ctx, callerOf(request));
    const ids = [...((request.params as Record<string, string>)['*'] ?? '').matchAll(filePath)];
    const id = ids.at(-1)?.[1];
    if (!id) throw new RelayError(404, 'NOT_FOUND', '未知的文件');
    return sendVideoContent(ctx, relay, reply, caller.user.id, taskIdOfGemini(id));
  });
}
