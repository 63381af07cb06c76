import { UpstreamError } from '../../errors.js';
import { epochSeconds, sendTaskJson } from '../shared/task-json.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamTarget } from '../types.js';
import { sunoFetchRequest, sunoSubmitRequest } from './requests.js';
import type { Json } from '@modelgate/shared';

/** What a poll learns of one upstream task. */
export interface SunoTaskState {
  upstreamId: string;
  status: string;
  failReason: string;
  progress: string;
  startTime: number;
  finishTime: number;
  data: string;
}

const sunoStatuses = new Set(['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'FAILURE', 'SUCCESS', 'UNKNOWN']);

async function postJson(adapter: ProviderAdapter, target: UpstreamTarget, request: UpstreamRequest, signal?: AbortSignal): Promise<Json> {
  const json = await sendTaskJson(adapter, target, request, 'Suno', signal);
  if (json && typeof json === 'object' && !Array.isArray(json)) return json as Json;
  throw new UpstreamError(502, 'Suno 上游返回的不是 JSON 对象', 'upstream_bad_response', JSON.stringify(json).slice(0, 2000));
}

/**
 * Submits a task: `{code:"success", data:"<upstream task id>"}`; any other code is the request's
 * fault as the proxy saw it (400 with its message); an HTTP error keeps its status (failover).
 */
export async function submitSunoTask(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  action: 'MUSIC' | 'LYRICS',
  body: Json,
  signal?: AbortSignal,
): Promise<string> {
  const json = await postJson(adapter, target, sunoSubmitRequest(target, action, body), signal);
  const id = json.data;
  if (json.code !== 'success' || typeof id !== 'string' || !id || id.length > 191) {
    const message = typeof json.message === 'string' && json.message ? json.message : 'Suno 提交失败';
    throw new UpstreamError(400, message, typeof json.code === 'string' ? json.code : null, JSON.stringify(json).slice(0, 2000));
  }
  return id;
}

/** Polls the upstream tasks `{code:"success", data:[{task_id, status, fail_reason, …, data}]}`. */
export async function fetchSunoTasks(
  adapter: ProviderAdapter,
  target: UpstreamTarget,
  upstreamIds: string[],
  signal?: AbortSignal,
): Promise<SunoTaskState[]> {
  const json = await postJson(adapter, target, sunoFetchRequest(target, upstreamIds), signal);
  const list = Array.isArray(json.data) ? (json.data as Json[]) : [];
  return list
    .filter((item) => item && typeof item === 'object' && typeof item.task_id === 'string')
    .map((item) => {
      const status = typeof item.status === 'string' && sunoStatuses.has(item.status) ? item.status : 'UNKNOWN';
      const isDone = status === 'SUCCESS' || status === 'FAILURE';
      return {
        upstreamId: item.task_id as string,
        status,
        failReason: typeof item.fail_reason === 'string' ? item.fail_reason.slice(0, 2000) : '',
        progress: isDone
          ? '100%'
          : typeof item.progress === 'string' && /^\d{1,3}%$/.test(item.progress)
            ? item.progress
            : status === 'IN_PROGRESS'
              ? '50%'
              : '0%',
        startTime: epochSeconds(item.start_time),
        finishTime: epochSeconds(item.finish_time),
        // Whole (the answer is at most 4 MB): a cut would not be JSON any more.
        data: item.data === undefined ? '' : JSON.stringify(item.data),
      };
    });
}
