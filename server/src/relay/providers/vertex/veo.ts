import { type RelayError, UpstreamError } from '../../errors.js';
import { sendTaskJson } from '../shared/task-json.js';
import { veoBody, type SubmitVideo, type VideoAsk, type VideoState } from '../shared/video-task.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamTarget } from '../types.js';
import { isVertexRegion, regionFor, vertexHost, vertexStorageUri } from './api.js';
import { parseVertexKey, type ServiceAccount } from './credentials.js';
import { vertexTokenCache } from './token.js';
import type { Json } from '@modelgate/shared';

/** Veo on Vertex AI: the only video models of a Vertex channel (its Gemini and Claude models make none). */
export const isVeoModel = (model: string): boolean => model.startsWith('veo-');

/** Google's Cloud Storage JSON API, where the videos Veo wrote to the channel's bucket are read. */
export const googleStorageHost = 'https://storage.googleapis.com';

/**
 * An operation name as Vertex gives it:
 * `projects/{project}/locations/{region}/publishers/google/models/{model}/operations/{id}`.
 * Anything else is never sent back to it.
 */
const operationName =
  /^projects\/([\w.:-]{1,100})\/locations\/([a-z0-9-]{1,64})\/publishers\/google\/models\/([\w.@-]{1,100})\/operations\/([\w-]{1,200})$/;

/** `gs://{bucket}/{object}` as Veo names a video it wrote. */
const gcsUri = /^gs:\/\/([a-z0-9][a-z0-9._-]{1,220}[a-z0-9])\/([^\r\n]{1,1024})$/;

/**
 * Why a Vertex channel cannot make this video (null: it can): only `veo-` models are videos, only a
 * service account can read the videos back from Cloud Storage, and Veo must be told where to write them
 * (`storageUri`), since a video answered inline would have to be kept in the task row.
 */
export function vertexVideoRefusal(channelId: number, keys: string[], other: string, model: string): string | null {
  if (!isVeoModel(model)) return `渠道 #${channelId} 不支持视频生成`;
  if (!vertexStorageUri(other)) return `Vertex AI 渠道 #${channelId} 未设置 storageUri（Veo 视频写入的 Cloud Storage 位置）`;
  const isServiceAccount = (key: string) => {
    try {
      return parseVertexKey(key).kind === 'service-account';
    } catch {
      return false;
    }
  };
  return keys.length > 0 && keys.every(isServiceAccount) ? null : `Vertex AI 渠道 #${channelId} 的 Veo 视频需要服务账号 JSON 密钥`;
}

/** A service account's bearer token (the API-key mode reads no Cloud Storage, so it makes no videos). */
async function accountAndToken(target: UpstreamTarget): Promise<{ account: ServiceAccount; token: string }> {
  let key;
  try {
    key = parseVertexKey(target.key);
  } catch (error) {
    throw new UpstreamError(401, (error as RelayError).message, 'invalid_channel_key', '');
  }
  if (key.kind !== 'service-account')
    throw new UpstreamError(400, 'Vertex AI 的 Veo 视频需要服务账号 JSON 密钥', 'unsupported_endpoint', '');
  return { account: key.account, token: await vertexTokenCache.getAccessToken(key.account, target.dispatcher) };
}

/**
 * `POST {host}/v1/projects/{project}/locations/{region}/publishers/google/models/{model}:predictLongRunning`:
 * one instance, Veo's parameters, one sample, written under the channel's `storageUri`.
 */
export function vertexVeoSubmitRequest(
  target: UpstreamTarget,
  account: ServiceAccount,
  token: string,
  model: string,
  ask: VideoAsk,
): UpstreamRequest {
  const storage = vertexStorageUri(target.other);
  if (!storage)
    throw new UpstreamError(400, 'Vertex AI 渠道未设置 storageUri（Veo 视频写入的 Cloud Storage 位置）', 'unsupported_endpoint', '');
  const region = regionFor(target.other, model);
  const { instances, parameters } = veoBody(ask);
  parameters.sampleCount = 1;
  parameters.storageUri = storage.uri;
  return {
    url: `${vertexHost(target.baseURL, region)}/v1/projects/${encodeURIComponent(account.project_id)}/locations/${region}/publishers/google/models/${encodeURIComponent(model)}:predictLongRunning`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: { instances, parameters },
  };
}

/** Submits a video: the operation's name is the upstream id. */
export const submitVertexVeo: SubmitVideo = async (adapter, target, model, ask, signal) => {
  const { account, token } = await accountAndToken(target);
  const submit = vertexVeoSubmitRequest(target, account, token, model, ask);
  const json = (await sendTaskJson(adapter, target, submit, 'Vertex AI Veo', signal)) as Json;
  const name = json?.name;
  if (typeof name !== 'string' || !operationName.test(name) || !isVertexRegion(operationName.exec(name)![2])) {
    throw new UpstreamError(502, 'Veo 上游没有返回有效的操作名', 'upstream_bad_response', JSON.stringify(json).slice(0, 2000));
  }
  return name;
};

/** One `fetchPredictOperation` answer → its state; the videos are kept as their `gs://` addresses. */
export function vertexVeoStateOf(upstreamId: string, json: Json): VideoState {
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
  const response = (json.response ?? {}) as Json;
  const videos = Array.isArray(response.videos) ? (response.videos as Json[]) : [];
  const uris = videos.map((video) => video?.gcsUri).filter((uri): uri is string => typeof uri === 'string' && gcsUri.test(uri));
  if (uris.length > 0) return { upstreamId, status: 'SUCCESS', failReason: '', progress: '100%', uris };
  // A video answered inline is not kept: storageUri was asked for, so this is no answer the gateway can serve.
  const isInline = videos.some((video) => typeof video?.bytesBase64Encoded === 'string');
  const filtered = response.raiMediaFilteredReasons;
  const reason = isInline
    ? 'Vertex AI 直接返回了视频内容而没有写入 storageUri，网关不保存这样的视频'
    : Array.isArray(filtered) && typeof filtered[0] === 'string'
      ? filtered[0].slice(0, 2000)
      : 'Veo 没有返回视频';
  return { upstreamId, status: 'FAILURE', failReason: reason, progress: '100%', uris: [] };
}

/**
 * Polls each operation (`POST …/models/{model}:fetchPredictOperation {operationName}`, in the operation's
 * own region); one that cannot be read now (or by `signal`'s end) is left for the next poll.
 */
export async function fetchVertexVeoStates(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  upstreamIds: string[],
  signal?: AbortSignal,
): Promise<VideoState[]> {
  const states: VideoState[] = [];
  let token: string | null = null;
  for (const name of upstreamIds) {
    if (signal?.aborted) break;
    const match = operationName.exec(name);
    if (!match || !isVertexRegion(match[2])) continue;
    const [, project, region, model] = match;
    try {
      token ??= (await accountAndToken(target)).token;
    } catch {
      return states;
    }
    const request: UpstreamRequest = {
      url: `${vertexHost(target.baseURL, region!)}/v1/projects/${project}/locations/${region}/publishers/google/models/${model}:fetchPredictOperation`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: { operationName: name },
    };
    const json = await sendTaskJson(adapter, target, request, 'Vertex AI Veo', signal).catch(() => null);
    if (json && typeof json === 'object' && !Array.isArray(json)) states.push(vertexVeoStateOf(name, json as Json));
  }
  return states;
}

/**
 * The request that reads a video Veo wrote: `gs://{bucket}/{object}` becomes
 * `GET https://storage.googleapis.com/storage/v1/b/{bucket}/o/{object}?alt=media` with the channel's
 * access token. The token is Google's own (cloud-platform scope) and goes only to Google's storage API
 * (or to the channel's base URL, which is given the same token for every Vertex call), and only for an
 * object in the channel's own `storageUri` bucket; fetchVideoContent drops it on a redirect elsewhere.
 */
export async function vertexVeoDownloadRequest(target: UpstreamTarget, uri: string): Promise<UpstreamRequest> {
  const match = gcsUri.exec(uri);
  const storage = vertexStorageUri(target.other);
  if (!match || !storage || match[1] !== storage.bucket) throw new UpstreamError(502, 'Veo 视频地址无效', 'upstream_bad_response', '');
  const [, bucket, object] = match;
  const { token } = await accountAndToken(target);
  const host = target.baseURL.trim() ? vertexHost(target.baseURL, '') : googleStorageHost;
  return {
    url: `${host}/storage/v1/b/${encodeURIComponent(bucket!)}/o/${encodeURIComponent(object!)}?alt=media`,
    method: 'GET',
    headers: { authorization: `Bearer ${token}` },
    body: '',
  };
}
