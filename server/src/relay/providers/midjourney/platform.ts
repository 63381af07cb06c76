import { UpstreamError } from '../../errors.js';
import { epochSeconds, sendTaskJson, TaskRefusal } from '../shared/task-json.js';
import type { ProviderAdapter, UpstreamTarget } from '../types.js';
import { mjImageSeedRequest, mjListRequest, mjSubmitRequest } from './requests.js';
import type { Json } from '@modelgate/shared';

const isObject = (value: unknown): value is Json => !!value && typeof value === 'object' && !Array.isArray(value);

/** A Midjourney-Proxy submit answer `{code, description, result, properties}`. */
export interface MjSubmitAnswer {
  code: number;
  description: string;
  /** The upstream task id (submits) or a list of URLs (upload-discord-images). */
  result: string | string[];
  properties: Json;
}

/**
 * Codes a proxy answers a submit with: 1 submitted, 21 existed / waiting for a modal, 22 queued
 * are accepted; 23 (queue full) and 9 (system error) are the channel's trouble, so another channel
 * may take the task; anything else (3 not found, 4 validation, 24 banned prompt) is the request's.
 */
export const mjAcceptedCodes = new Set([1, 21, 22]);
const channelTroubleCodes = new Set([9, 23]);

const text = (value: unknown, max: number): string =>
  typeof value === 'string' ? value.slice(0, max) : typeof value === 'number' ? String(value) : '';

/** Reads a submit answer; a bad shape is the channel's fault (502). */
function submitAnswerOf(json: unknown): MjSubmitAnswer {
  if (!isObject(json) || typeof json.code !== 'number' || !Number.isInteger(json.code)) {
    throw new UpstreamError(502, 'Midjourney 上游的回答无效', 'upstream_bad_response', JSON.stringify(json ?? null).slice(0, 2000));
  }
  const result = Array.isArray(json.result)
    ? json.result
        .filter((item): item is string => typeof item === 'string')
        .slice(0, 20)
        .map((item) => item.slice(0, 2048))
    : text(json.result, 191);
  return {
    code: json.code,
    description: text(json.description, 2000),
    result,
    properties: isObject(json.properties) ? json.properties : {},
  };
}

/**
 * Submits to `{base}/mj/{path}`. An accepted answer is returned (its `result` the upstream task id,
 * or URLs for an upload); a refusal for the request's sake throws TaskRefusal; the channel's own
 * trouble (HTTP error, queue full, system error, no task id) throws an UpstreamError (failover).
 */
export async function submitMjTask(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  path: string,
  body: Json,
  signal?: AbortSignal,
): Promise<MjSubmitAnswer> {
  const answer = submitAnswerOf(await sendTaskJson(adapter, target, mjSubmitRequest(target, path, body), 'Midjourney', signal));
  if (channelTroubleCodes.has(answer.code))
    throw new UpstreamError(
      503,
      answer.description || `Midjourney 上游繁忙（code ${answer.code}）`,
      String(answer.code),
      JSON.stringify(answer).slice(0, 2000),
    );
  if (!mjAcceptedCodes.has(answer.code))
    throw new TaskRefusal({ ...answer, result: null }, answer.description || `Midjourney 提交失败（code ${answer.code}）`);
  if (answer.result === '' || (Array.isArray(answer.result) && answer.result.length === 0)) {
    throw new UpstreamError(
      502,
      'Midjourney 上游接受了任务但没有给出任务 ID',
      'upstream_bad_response',
      JSON.stringify(answer).slice(0, 2000),
    );
  }
  return answer;
}

/** What a poll learns of one upstream Midjourney task. */
export interface MjTaskState {
  upstreamId: string;
  /** NOT_START, SUBMITTED, IN_PROGRESS, MODAL, SUCCESS or FAILURE (a cancelled task is a FAILURE). */
  status: string;
  failReason: string;
  progress: string;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  videoUrl: string;
  promptEn: string;
  description: string;
  state: string;
  /** JSON of the buttons and properties, as the task object carries them. */
  buttons: string;
  properties: string;
}

const mjStatuses = new Set(['NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'MODAL', 'SUCCESS', 'FAILURE']);
const httpUrl = (value: unknown): string => (typeof value === 'string' && /^https?:\/\//i.test(value) && value.length <= 2048 ? value : '');

/** One task object of a list answer, normalised; null when it has no id. */
function taskStateOf(item: unknown): MjTaskState | null {
  if (!isObject(item)) return null;
  const upstreamId = text(item.id, 191);
  if (!upstreamId) return null;
  const raw = typeof item.status === 'string' ? item.status : '';
  const status = raw === 'CANCEL' ? 'FAILURE' : mjStatuses.has(raw) ? raw : 'SUBMITTED';
  const isDone = status === 'SUCCESS' || status === 'FAILURE';
  const progress = typeof item.progress === 'string' && /^\d{1,3}%$/.test(item.progress) ? item.progress : isDone ? '100%' : '0%';
  const videoUrls = Array.isArray(item.videoUrls) ? item.videoUrls : [];
  return {
    upstreamId,
    status,
    failReason: text(item.failReason, 2000) || (raw === 'CANCEL' ? '任务已取消' : ''),
    progress: status === 'SUCCESS' ? '100%' : progress,
    startTime: epochSeconds(item.startTime),
    finishTime: epochSeconds(item.finishTime),
    imageUrl: httpUrl(item.imageUrl),
    videoUrl: httpUrl(item.videoUrl) || httpUrl(isObject(videoUrls[0]) ? videoUrls[0].url : videoUrls[0]),
    promptEn: text(item.promptEn, 10_000),
    description: text(item.description, 2000),
    state: text(item.state, 2000),
    buttons: Array.isArray(item.buttons) ? JSON.stringify(item.buttons.slice(0, 50)).slice(0, 20_000) : '',
    properties: isObject(item.properties) ? JSON.stringify(item.properties).slice(0, 20_000) : '',
  };
}

/** Polls `POST {base}/mj/task/list-by-condition {ids}` (an array of task objects). */
export async function fetchMjTasks(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  upstreamIds: string[],
  signal?: AbortSignal,
): Promise<MjTaskState[]> {
  const json = await sendTaskJson(adapter, target, mjListRequest(target, upstreamIds), 'Midjourney', signal);
  if (!Array.isArray(json))
    throw new UpstreamError(502, 'Midjourney 上游的任务列表不是数组', 'upstream_bad_response', JSON.stringify(json ?? null).slice(0, 2000));
  return json.map(taskStateOf).filter((state): state is MjTaskState => state !== null);
}

/** `GET {base}/mj/task/{id}/image-seed` (Proxy Plus): `{code, description, result:"<seed>"}`. */
export async function fetchMjImageSeed(adapter: ProviderAdapter, target: UpstreamTarget, upstreamId: string): Promise<MjSubmitAnswer> {
  return submitAnswerOf(await sendTaskJson(adapter, target, mjImageSeedRequest(target, upstreamId), 'Midjourney'));
}
