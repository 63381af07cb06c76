import { UpstreamError } from '../../errors.js';
import { sendTaskJson } from '../shared/task-json.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamTarget } from '../types.js';
import { geminiBase, geminiHeaders } from './api.js';
import { veoBody, videoGet, type SubmitVideo, type VideoAsk, type VideoState } from '../shared/video-task.js';
import type { Json } from '@modelgate/shared';

/** An operation name as Veo gives it: `models/{model}/operations/{id}`; anything else is not sent back to it. */
const operationName = /^models\/[\w.-]{1,100}\/operations\/[\w-]{1,200}$/;

/** `POST {base}/v1beta/models/{model}:predictLongRunning` with one instance and Veo's parameters. */
export function veoSubmitRequest(target: UpstreamTarget, model: string, ask: VideoAsk): UpstreamRequest {
  return {
    url: `${geminiBase(target.baseURL)}/v1beta/models/${encodeURIComponent(model)}:predictLongRunning`,
    headers: geminiHeaders(target),
    body: veoBody(ask),
  };
}

/** Submits a video: the operation's name is the upstream id. */
export const submitVeo: SubmitVideo = async (adapter, target, model, ask, signal) => {
  const json = (await sendTaskJson(adapter, target, veoSubmitRequest(target, model, ask), 'Veo', signal)) as Json;
  const name = json?.name;
  if (typeof name !== 'string' || !operationName.test(name)) {
    throw new UpstreamError(502, 'Veo 上游没有返回有效的操作名', 'upstream_bad_response', JSON.stringify(json).slice(0, 2000));
  }
  return name;
};

const samplesOf = (response: unknown): Json[] => {
  const generated = (response as { generateVideoResponse?: { generatedSamples?: unknown } } | undefined)?.generateVideoResponse
    ?.generatedSamples;
  return Array.isArray(generated) ? (generated as Json[]) : [];
};

/** One operation's answer → its state. */
export function veoStateOf(upstreamId: string, json: Json): VideoState {
  if (json.done !== true) return { upstreamId, status: 'IN_PROGRESS', failReason: '', progress: '50%', uris: [] };
  const error = json.error as { message?: unknown } | undefined;
  if (error)
    return {
      upstreamId,
      status: 'FAILURE',
      failReason: typeof error.message === 'string' ? error.message.slice(0, 2000) : 'Veo 生成失败',
      progress: '100%',
      uris: [],
    };
  const response = json.response as Json | undefined;
  const uris = samplesOf(response)
    .map((sample) => (sample.video as { uri?: unknown } | undefined)?.uri)
    .filter((uri): uri is string => typeof uri === 'string' && uri.length <= 4096);
  if (uris.length === 0) {
    const filtered = (response?.generateVideoResponse as { raiMediaFilteredReasons?: unknown } | undefined)?.raiMediaFilteredReasons;
    const reason = Array.isArray(filtered) && typeof filtered[0] === 'string' ? filtered[0].slice(0, 2000) : 'Veo 没有返回视频';
    return { upstreamId, status: 'FAILURE', failReason: reason, progress: '100%', uris: [] };
  }
  return { upstreamId, status: 'SUCCESS', failReason: '', progress: '100%', uris };
}

/** Polls each operation (`GET {base}/v1beta/{name}`); one that cannot be read now (or by `signal`'s end) is left for the next poll. */
export async function fetchVeoStates(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  upstreamIds: string[],
  signal?: AbortSignal,
): Promise<VideoState[]> {
  const states: VideoState[] = [];
  for (const name of upstreamIds) {
    if (signal?.aborted) break;
    if (!operationName.test(name)) continue;
    const request: UpstreamRequest = {
      url: `${geminiBase(target.baseURL)}/v1beta/${name}`,
      method: 'GET',
      headers: geminiHeaders(target),
      body: '',
    };
    const json = await sendTaskJson(adapter, target, request, 'Veo', signal).catch(() => null);
    if (json && typeof json === 'object' && !Array.isArray(json)) states.push(veoStateOf(name, json as Json));
  }
  return states;
}

/**
 * The request that downloads a generated video. The URI came from the upstream, so the channel's key
 * goes only to the channel's own host; a URI elsewhere is fetched without it.
 */
export function veoDownloadRequest(target: UpstreamTarget, uri: string): UpstreamRequest {
  const home = new URL(geminiBase(target.baseURL)).origin;
  return videoGet(uri, 'Veo', (url): Record<string, string> => (url.origin === home && target.key ? { 'x-goog-api-key': target.key } : {}));
}
