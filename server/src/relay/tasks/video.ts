import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../../context.js';
import { RelayError, UpstreamError } from '../errors.js';
import { storableText } from '../ledger/log-rows.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import { fetchVeoStates, submitVeo, veoDownloadRequest } from '../providers/gemini/veo.js';
import { fetchKlingStates, klingDownloadRequest, submitKling } from '../providers/kling/video.js';
import type { SubmitVideo, VideoAsk, VideoState } from '../providers/shared/video-task.js';
import type { ProviderAdapter, UpstreamRequest, UpstreamTarget } from '../providers/types.js';
import { fetchVertexVeoStates, submitVertexVeo, vertexVeoDownloadRequest, vertexVideoRefusal } from '../providers/vertex/veo.js';
import type { RelayChannel } from '../routing/channel-index.js';
import type { RelayState } from '../state.js';
import type { PolledPlatform } from './poller.js';
import { submitTask } from './submit.js';

/**
 * How one channel type makes videos: submit (the upstream id), poll, and the request that downloads a
 * made video (asynchronous where it needs an access token). `refusal`: why this channel cannot make this
 * model's video (a channel type that also serves other models), skipped like a channel that makes none.
 */
export interface VideoProvider {
  submit: SubmitVideo;
  /** `signal` ends a poll that takes too long: the states read by then are answered. */
  fetch(adapter: ProviderAdapter, target: UpstreamTarget, upstreamIds: string[], signal?: AbortSignal): Promise<VideoState[]>;
  download(target: UpstreamTarget, uri: string): UpstreamRequest | Promise<UpstreamRequest>;
  refusal?(channel: RelayChannel, model: string): string | null;
}

/** The channel types that make videos, by type: Gemini (24, Veo), Vertex AI (41, its `veo-` models) and Kling (50). */
const videoProviders = new Map<number, VideoProvider>([
  [24, { submit: submitVeo, fetch: fetchVeoStates, download: veoDownloadRequest }],
  [
    41,
    {
      submit: submitVertexVeo,
      fetch: fetchVertexVeoStates,
      download: vertexVeoDownloadRequest,
      refusal: (channel, model) => vertexVideoRefusal(channel.id, channel.keys, channel.other, model),
    },
  ],
  [50, { submit: submitKling, fetch: fetchKlingStates, download: klingDownloadRequest }],
]);

const providerOf = (channel: RelayChannel): VideoProvider | undefined => videoProviders.get(channel.type);

/** Video tasks, in `tasks` (platform "video"); a poll keeps the generated videos' upstream URIs as the task's data. */
export const videoPlatform: PolledPlatform = {
  table: 'tasks',
  platform: 'video',
  fetch: async (channel, target, upstreamIds, signal) =>
    (await (providerOf(channel)?.fetch(channel.adapter!, target, upstreamIds, signal) ?? Promise.resolve([]))).map((state) => ({
      upstreamId: state.upstreamId,
      status: state.status,
      failReason: state.failReason,
      progress: state.progress,
      startTime: 0,
      finishTime: 0,
      columns: (state.uris.length > 0 ? { data: JSON.stringify({ uris: state.uris }) } : {}) as Record<string, string>,
    })),
};

/** What a video task row keeps of its request (`properties`). */
export interface VideoProperties {
  model: string;
  prompt: string;
  seconds: number;
  size: string;
}

/** A video task as the routes read it. */
export interface VideoRow {
  task_id: string;
  status: string;
  fail_reason: string;
  progress: string;
  submit_time: number;
  finish_time: number;
  properties: string;
  data: string;
  channel_id: number;
  upstream_id: string;
  quota: number;
}

export const videoIdPrefix = 'video_';

/**
 * Submits a video under the task core: the price is the model's per-second price × the seconds asked
 * (ModelPrice, × the group ratio), held, charged when a channel accepts it and refunded once if it fails.
 */
export async function submitVideo(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  ask: VideoAsk & { model: string; size: string },
  request: { ip: string; path: string; headers: IncomingHttpHeaders; isGone: () => boolean },
): Promise<string> {
  const { taskId } = await submitTask(ctx, relay, caller, {
    platform: 'video',
    action: 'generate',
    model: ask.model,
    prompt: ask.prompt,
    ip: request.ip,
    requestPath: request.path,
    headers: request.headers,
    isGone: request.isGone,
    units: ask.seconds,
    newTaskId: () => `${videoIdPrefix}${randomUUID().replace(/-/g, '')}`,
    refusal: (channel) => {
      const provider = providerOf(channel);
      const reason = provider ? (provider.refusal?.(channel, ask.model) ?? null) : `渠道 #${channel.id} 不支持视频生成`;
      return reason === null ? null : new UpstreamError(400, reason, 'unsupported_endpoint', '');
    },
    send: (channel, target, signal) => providerOf(channel)!.submit(channel.adapter!, target, ask.model, ask, signal),
    record: async (trx, row, upstreamId, now) => {
      const properties: VideoProperties = { model: ask.model, prompt: ask.prompt, seconds: ask.seconds, size: ask.size };
      await trx
        .insertInto('tasks')
        .values({
          created_at: now,
          updated_at: now,
          task_id: row.taskId,
          upstream_id: upstreamId,
          platform: 'video',
          user_id: row.userId,
          token_id: row.tokenId,
          channel_id: row.channelId,
          quota: row.quota,
          subscription_parts: row.subscriptionParts,
          action: 'generate',
          status: 'SUBMITTED',
          fail_reason: '',
          submit_time: now,
          start_time: 0,
          finish_time: 0,
          progress: '0%',
          properties: storableText(JSON.stringify(properties), 20_000),
          data: '',
          lease_owner: '',
          lease_until: 0,
        })
        .execute();
    },
  });
  return taskId;
}

const columns = [
  'task_id',
  'status',
  'fail_reason',
  'progress',
  'submit_time',
  'finish_time',
  'properties',
  'data',
  'channel_id',
  'upstream_id',
  'quota',
] as const;

/** The caller's own video task (any user's for `null`: an admin); another user's is unknown (404). */
export async function ownVideo(ctx: AppContext, userId: number | null, taskId: string): Promise<VideoRow> {
  if (!taskId || taskId.length > 191) throw videoNotFound(taskId);
  const row = await ctx.storage.db
    .selectFrom('tasks')
    .select([...columns])
    .$if(userId !== null, (q) => q.where('user_id', '=', userId!))
    .where('platform', '=', 'video')
    .where('task_id', '=', taskId)
    .executeTakeFirst();
  if (!row) throw videoNotFound(taskId);
  return { ...row, submit_time: Number(row.submit_time), finish_time: Number(row.finish_time), quota: Number(row.quota) };
}

/** A page of the caller's videos, newest first unless `order` is asc, after the cursor id. */
export async function listVideos(
  ctx: AppContext,
  userId: number,
  page: { after?: string; limit: number; order: 'asc' | 'desc' },
): Promise<{ rows: VideoRow[]; hasMore: boolean }> {
  const db = ctx.storage.db;
  let cursor: number | null = null;
  if (page.after) {
    const found = await db
      .selectFrom('tasks')
      .select('id')
      .where('user_id', '=', userId)
      .where('platform', '=', 'video')
      .where('task_id', '=', page.after)
      .executeTakeFirst();
    if (!found) throw videoNotFound(page.after);
    cursor = found.id;
  }
  const rows = await db
    .selectFrom('tasks')
    .select([...columns])
    .where('user_id', '=', userId)
    .where('platform', '=', 'video')
    .$if(cursor !== null, (q) => q.where('id', page.order === 'asc' ? '>' : '<', cursor!))
    .orderBy('id', page.order)
    .limit(page.limit + 1)
    .execute();
  return {
    rows: rows
      .slice(0, page.limit)
      .map((row) => ({ ...row, submit_time: Number(row.submit_time), finish_time: Number(row.finish_time), quota: Number(row.quota) })),
    hasMore: rows.length > page.limit,
  };
}

/** Deletes a finished video (its row; its bill stays in the logs); an unfinished one is refused. */
export async function deleteVideo(ctx: AppContext, userId: number, taskId: string): Promise<void> {
  const row = await ownVideo(ctx, userId, taskId);
  if (row.status !== 'SUCCESS' && row.status !== 'FAILURE')
    throw new RelayError(400, 'video_not_finished', '视频仍在生成中，完成或失败后才能删除', false, 'invalid_request_error');
  await ctx.storage.db
    .deleteFrom('tasks')
    .where('user_id', '=', userId)
    .where('platform', '=', 'video')
    .where('task_id', '=', taskId)
    .where('status', 'in', ['SUCCESS', 'FAILURE'])
    .execute();
}

export function videoNotFound(taskId: string): RelayError {
  return new RelayError(404, 'video_not_found', `视频 ${taskId.slice(0, 100)} 不存在`, false, 'invalid_request_error');
}

export function propertiesOf(row: VideoRow): VideoProperties {
  try {
    const parsed = JSON.parse(row.properties) as Partial<VideoProperties>;
    return {
      model: String(parsed.model ?? ''),
      prompt: String(parsed.prompt ?? ''),
      seconds: Number(parsed.seconds) || 0,
      size: String(parsed.size ?? ''),
    };
  } catch {
    return { model: '', prompt: '', seconds: 0, size: '' };
  }
}

/** The upstream URI of a finished video's first sample, or null. */
export function videoUriOf(row: VideoRow): string | null {
  try {
    const uris = (JSON.parse(row.data) as { uris?: unknown }).uris;
    return Array.isArray(uris) && typeof uris[0] === 'string' ? uris[0] : null;
  } catch {
    return null;
  }
}

/** The request that downloads a finished video from its channel (the channel's key stays on its own host). */
export async function videoDownload(channel: RelayChannel, target: UpstreamTarget, row: VideoRow): Promise<UpstreamRequest> {
  const uri = videoUriOf(row);
  if (row.status !== 'SUCCESS' || !uri) throw new RelayError(400, 'video_not_ready', '视频尚未生成完成', false, 'invalid_request_error');
  const provider = providerOf(channel);
  if (!provider) throw new RelayError(503, 'channel_unavailable', `视频的渠道 #${channel.id} 已不可用`);
  return provider.download(target, uri);
}
