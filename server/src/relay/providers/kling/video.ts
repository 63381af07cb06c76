import { RelayError, UpstreamError } from '../../errors.js';
import { sendTaskJson } from '../shared/task-json.js';
import { videoGet, type SubmitVideo, type VideoAsk, type VideoState } from '../shared/video-task.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamTarget } from '../types.js';
import { klingBase, klingHeaders } from './api.js';
import type { Json } from '@modelgate/shared';

/** The lengths Kling makes (its `duration`), in seconds. */
export const klingSeconds = [5, 10];

/** An upstream id as the gateway keeps it: the endpoint the task was made on, then Kling's task id. */
const upstreamIdPattern = /^(text2video|image2video)\/([\w-]{1,200})$/;

const refused = (message: string) => new RelayError(400, 'invalid_request', message, false, 'invalid_request_error');

/**
 * Checks what Kling cannot make before anything is sent: its lengths (5 or 10 seconds) and its
 * standard-mode sizes (1280x720, 720x1280). A RelayError here is the request's fault: the attempt
 * loop passes it on without blaming the channel, and the hold is released unbilled.
 */
function checkAsk(ask: VideoAsk): void {
  if (!klingSeconds.includes(ask.seconds)) throw refused('Kling 视频只支持 5 秒或 10 秒（seconds 为 5 或 10）');
  if (ask.resolution !== undefined && ask.resolution !== '720p') throw refused('Kling 视频只支持 720p 尺寸（1280x720、720x1280）');
}

/**
 * `POST {base}/v1/videos/text2video`, or `image2video` with a first frame (base64 without a data:
 * prefix; Kling takes the frame's aspect ratio, so none is sent). Mode is left to Kling (std).
 */
export function klingSubmitRequest(
  target: UpstreamTarget,
  model: string,
  ask: VideoAsk,
): { endpoint: 'text2video' | 'image2video'; request: UpstreamRequest } {
  const endpoint = ask.image ? 'image2video' : 'text2video';
  const body: Json = { model_name: model, prompt: ask.prompt, duration: String(ask.seconds) };
  if (ask.image) body.image = ask.image.data;
  else body.aspect_ratio = ask.aspectRatio ?? '16:9';
  if (ask.negativePrompt) body.negative_prompt = ask.negativePrompt;
  return { endpoint, request: { url: `${klingBase(target.baseURL)}/v1/videos/${endpoint}`, headers: klingHeaders(target), body } };
}

/** Submits a video: `{endpoint}/{task_id}` is the upstream id. A refusal in a 2xx (code ≠ 0) is the request's. */
export const submitKling: SubmitVideo = async (adapter, target, model, ask, signal) => {
  checkAsk(ask);
  const { endpoint, request } = klingSubmitRequest(target, model, ask);
  const json = (await sendTaskJson(adapter, target, request, 'Kling', signal)) as Json | null;
  const code = json?.code;
  if (typeof code === 'number' && code !== 0) {
    const message = typeof json?.message === 'string' ? json.message.slice(0, 500) : '';
    throw new RelayError(400, 'task_refused', `Kling 拒绝了请求（code ${code}）：${message}`, false, 'upstream_error');
  }
  const taskId = (json?.data as Json | undefined)?.task_id;
  const upstreamId = `${endpoint}/${String(taskId)}`;
  if (code !== 0 || (typeof taskId !== 'string' && typeof taskId !== 'number') || !upstreamIdPattern.test(upstreamId)) {
    throw new UpstreamError(502, 'Kling 上游没有返回有效的任务 id', 'upstream_bad_response', JSON.stringify(json).slice(0, 2000));
  }
  return upstreamId;
};

const progressOf: Record<string, string> = { submitted: '10%', processing: '50%' };

/** One task's answer (`data` of the query) → its state. */
export function klingStateOf(upstreamId: string, data: Json): VideoState {
  const status = data.task_status;
  if (status === 'failed') {
    const reason =
      typeof data.task_status_msg === 'string' && data.task_status_msg ? data.task_status_msg.slice(0, 2000) : 'Kling 生成失败';
    return { upstreamId, status: 'FAILURE', failReason: reason, progress: '100%', uris: [] };
  }
  if (status !== 'succeed')
    return { upstreamId, status: 'IN_PROGRESS', failReason: '', progress: progressOf[String(status)] ?? '10%', uris: [] };
  const videos = (data.task_result as { videos?: unknown } | undefined)?.videos;
  const uris = (Array.isArray(videos) ? (videos as Json[]) : [])
    .map((video) => video?.url)
    .filter((url): url is string => typeof url === 'string' && url.length <= 4096);
  if (uris.length === 0) return { upstreamId, status: 'FAILURE', failReason: 'Kling 没有返回视频', progress: '100%', uris: [] };
  return { upstreamId, status: 'SUCCESS', failReason: '', progress: '100%', uris };
}

/** `GET {base}/v1/videos/{endpoint}/{task_id}`: one task. */
export function klingQueryRequest(target: UpstreamTarget, upstreamId: string): UpstreamRequest {
  return { url: `${klingBase(target.baseURL)}/v1/videos/${upstreamId}`, method: 'GET', headers: klingHeaders(target), body: '' };
}

/** `GET {base}/v1/videos/text2video?pageNum=1&pageSize=1`: the newest task, if any (free; the channel test). */
export function klingListRequest(target: UpstreamTarget): UpstreamRequest {
  return {
    url: `${klingBase(target.baseURL)}/v1/videos/text2video?pageNum=1&pageSize=1`,
    method: 'GET',
    headers: klingHeaders(target),
    body: '',
  };
}

/** The channel test: a list of one task proves the base URL and the key (a 2xx with code ≠ 0 is a failure too). */
export async function checkKlingHealth(adapter: ProviderAdapter, target: UpstreamTarget): Promise<void> {
  const json = (await sendTaskJson(adapter, target, klingListRequest(target), 'Kling')) as Json | null;
  if (json?.code !== 0) {
    const message = typeof json?.message === 'string' ? json.message.slice(0, 500) : '';
    throw new UpstreamError(
      502,
      `Kling 上游返回错误（code ${String(json?.code)}）：${message}`,
      'upstream_bad_response',
      JSON.stringify(json).slice(0, 2000),
    );
  }
}

/** Polls each task; one that cannot be read now (or by `signal`'s end) is left for the next poll. */
export async function fetchKlingStates(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  upstreamIds: string[],
  signal?: AbortSignal,
): Promise<VideoState[]> {
  const states: VideoState[] = [];
  for (const upstreamId of upstreamIds) {
    if (signal?.aborted) break;
    if (!upstreamIdPattern.test(upstreamId)) continue;
    const request = klingQueryRequest(target, upstreamId);
    const json = (await sendTaskJson(adapter, target, request, 'Kling', signal).catch(() => null)) as Json | null;
    const data = json?.code === 0 ? json.data : null;
    if (data && typeof data === 'object' && !Array.isArray(data)) states.push(klingStateOf(upstreamId, data as Json));
  }
  return states;
}

/**
 * The request that downloads a generated video: Kling's CDN serves it by its (signed) address, so
 * nothing of the channel's key is sent with it, whatever host it names.
 */
export function klingDownloadRequest(_target: UpstreamTarget, uri: string): UpstreamRequest {
  return videoGet(uri, 'Kling', () => ({}));
}
