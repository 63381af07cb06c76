import fastifyMultipart, { type Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.js';
import { RelayError } from '../errors.js';
import type { VideoAsk } from '../providers/shared/video-task.js';
import { callerOf } from '../pipeline/authenticate-first.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { RelayState } from '../state.js';
import { deleteVideo, listVideos, ownVideo, submitVideo } from '../tasks/video.js';
import { fetchVideoContent, videoRangeOf } from '../tasks/video-content.js';
import { openAiVideoOf, secondsOf, veoShapeOf } from './video-objects.js';
import type { Json } from '@modelgate/shared';

const imageTypes = new Set(['image/png', 'image/jpeg', 'image/webp']);
const maxPrompt = 32_000;
const badRequest = (message: string) => new RelayError(400, 'invalid_request', message, false, 'invalid_request_error');

/** The create form (multipart, as the openai SDK sends it) or a JSON body: fields, and an `input_reference` image. */
async function readCreate(request: FastifyRequest, maxBytes: number): Promise<{ fields: Json; image?: VideoAsk['image'] }> {
  if (!request.isMultipart()) {
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('请求体必须是 JSON 对象或 multipart/form-data');
    const fields = body as Json;
    const reference = fields.input_reference as { image_url?: unknown } | undefined;
    return { fields, image: reference === undefined ? undefined : imageOfDataUrl(reference?.image_url) };
  }
  const fields: Json = {};
  let image: VideoAsk['image'];
  try {
    for await (const part of (request.parts as () => AsyncIterable<Multipart>)()) {
      if (part.type === 'field') {
        fields[part.fieldname] = part.value;
        continue;
      }
      if (part.fieldname !== 'input_reference') {
        await part.toBuffer();
        continue;
      }
      const bytes = await part.toBuffer();
      if (!imageTypes.has(part.mimetype)) throw badRequest('input_reference 只支持 PNG、JPEG 或 WebP 图片');
      if (bytes.length === 0 || bytes.length > maxBytes) throw badRequest('input_reference 为空或过大');
      image = { mimeType: part.mimetype, data: bytes.toString('base64') };
    }
  } catch (error) {
    if (error instanceof RelayError) throw error;
    throw new RelayError(400, 'invalid_multipart', 'multipart/form-data 请求体格式错误或不完整', false, 'invalid_request_error');
  }
  return { fields, image };
}

/** `input_reference.image_url` of a JSON body: a base64 data URL of an image (the gateway fetches no URL for the caller). */
function imageOfDataUrl(url: unknown): VideoAsk['image'] {
  const match = typeof url === 'string' ? /^data:(image\/(?:png|jpeg|webp));base64,([A-Za-z0-9+/=]+)$/.exec(url) : null;
  if (!match) throw badRequest('input_reference.image_url 必须是 PNG、JPEG 或 WebP 图片的 base64 data URL');
  return { mimeType: match[1]!, data: match[2]! };
}

/** What the create form asks, checked: the model, the prompt, the seconds and the size (Veo's shape). */
export function videoAskOf(fields: Json, image: VideoAsk['image']): VideoAsk & { model: string; size: string } {
  const model = typeof fields.model === 'string' ? fields.model.trim() : '';
  if (!model || model.length > 100) throw badRequest('model 不能为空');
  const prompt = typeof fields.prompt === 'string' ? fields.prompt : '';
  if (!prompt.trim() || prompt.length > maxPrompt) throw badRequest(`prompt 不能为空，且不超过 ${maxPrompt} 个字符`);
  const size = typeof fields.size === 'string' && fields.size ? fields.size : '1280x720';
  // Left out, the length is OpenAI's default (4 s), or Kling's shortest (5 s) for its models, which make no 4.
  const seconds = secondsOf(fields.seconds, /^kling/i.test(model) ? 5 : 4);
  return { model, prompt, size, seconds, ...veoShapeOf(size), ...(image ? { image } : {}) };
}

const taskGate = (ctx: AppContext, caller: RelayCaller): RelayCaller => {
  if (!ctx.options.bool('TaskEnabled')) throw new RelayError(403, 'task_disabled', '任务功能未启用');
  return caller;
};

/** Sends a finished video's bytes (or the range the client asked for) to its owner. */
export async function sendVideoContent(
  ctx: AppContext,
  relay: RelayState,
  reply: FastifyReply,
  userId: number,
  taskId: string,
): Promise<FastifyReply> {
  const row = await ownVideo(ctx, userId, taskId);
  const content = await fetchVideoContent(ctx, relay, row, videoRangeOf(reply.request.headers.range));
  return reply.code(content.status).headers(content.headers).send(content.body);
}

/**
 * OpenAI's Videos API over the task core (docs/relay.md "Videos"): create, retrieve, list, delete and
 * the content, for the caller's own videos only.
 */
export async function registerVideoRoutes(
  scope: FastifyInstance,
  ctx: AppContext,
  relay: RelayState,
  byToken: onRequestAsyncHookHandler,
): Promise<void> {
  const bodyLimit = ctx.config.maxRequestBodyBytes;
  await scope.register(async (videos) => {
    videos.removeContentTypeParser('multipart/form-data');
    await videos.register(fastifyMultipart, { limits: { fileSize: bodyLimit, files: 1, fields: 20, fieldSize: 128 * 1024 } });
    videos.post('/v1/videos', { bodyLimit, onRequest: byToken }, async (request) => {
      const caller = taskGate(ctx, callerOf(request));
      const { fields, image } = await readCreate(request, bodyLimit);
      const ask = videoAskOf(fields, image);
      const taskId = await submitVideo(ctx, relay, caller, ask, {
        ip: request.ip,
        path: '/v1/videos',
        headers: request.headers,
        isGone: () => request.raw.destroyed,
      });
      return openAiVideoOf(await ownVideo(ctx, caller.user.id, taskId));
    });
  });
  scope.get('/v1/videos', { onRequest: byToken }, async (request) => {
    const caller = taskGate(ctx, callerOf(request));
    const query = (request.query ?? {}) as Record<string, unknown>;
    const limit = query.limit === undefined ? 20 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw badRequest('limit 必须是 1 到 100 之间的整数');
    const order = query.order === undefined ? 'desc' : query.order;
    if (order !== 'asc' && order !== 'desc') throw badRequest('order 只能是 asc 或 desc');
    const after = typeof query.after === 'string' && query.after ? query.after : undefined;
    const { rows, hasMore } = await listVideos(ctx, caller.user.id, { after, limit, order });
    const data = rows.map(openAiVideoOf);
    return { object: 'list', data, first_id: rows[0]?.task_id ?? null, last_id: rows.at(-1)?.task_id ?? null, has_more: hasMore };
  });
  scope.get('/v1/videos/:id', { onRequest: byToken }, async (request) => {
    const caller = taskGate(ctx, callerOf(request));
    return openAiVideoOf(await ownVideo(ctx, caller.user.id, (request.params as { id: string }).id));
  });
  scope.delete('/v1/videos/:id', { onRequest: byToken }, async (request) => {
    const caller = taskGate(ctx, callerOf(request));
    const id = (request.params as { id: string }).id;
    await deleteVideo(ctx, caller.user.id, id);
    return { id, object: 'video.deleted', deleted: true };
  });
  scope.get('/v1/videos/:id/content', { onRequest: byToken }, async (request, reply) => {
    const caller = taskGate(ctx, callerOf(request));
    const variant = (request.query as Record<string, unknown> | undefined)?.variant;
    if (variant !== undefined && variant !== 'video') throw badRequest('variant 只支持 video');
    return sendVideoContent(ctx, relay, reply, caller.user.id, (request.params as { id: string }).id);
  });
}
