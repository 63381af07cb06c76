import type { AppContext } from '../../context.js';
import { translate, type Language } from '../../lib/i18n/index.js';
import { shownImageUrl } from '../../lib/mj-image-url.js';
import type { DrawingLogQuery, MusicLogQuery } from './schemas.js';

/** Whose tasks a query reads: every user's (admin, who may filter by channel) or one user's own. */
export type TaskScope = { isAdmin: true } | { isAdmin: false; userId: number };

/** Columns only operators see (the channel, the upstream's task id, the paying token; for drawings the submit code and the upstream state). */
const adminOnlyDrawing = ['channel_id', 'code', 'state', 'upstream_id', 'token_id'] as const;
const adminOnlyMusic = ['channel_id', 'upstream_id', 'token_id'] as const;

/**
 * GET /api/mj/ and /api/mj/self/: drawing tasks newest first, filtered by task id and the submit
 * time window (epoch seconds); a user sees only their own and no admin-only columns. The failure
 * reason is in the viewer's language.
 */
export async function findDrawingTasks(ctx: AppContext, scope: TaskScope, query: DrawingLogQuery, language: Language) {
  let q = ctx.storage.db.selectFrom('midjourneys').selectAll();
  if (scope.isAdmin) {
    if (query.channel_id) q = q.where('channel_id', '=', query.channel_id);
  } else {
    q = q.where('user_id', '=', scope.userId);
  }
  if (query.mj_id) q = q.where('mj_id', '=', query.mj_id);
  if (query.start_timestamp) q = q.where('submit_time', '>=', query.start_timestamp);
  if (query.end_timestamp) q = q.where('submit_time', '<=', query.end_timestamp);
  const rows = await q
    .orderBy('id', 'desc')
    .limit(query.page_size)
    .offset(query.p * query.page_size)
    .execute();
  return rows.map((row) => {
    // The poll lease and the refund's bookkeeping (who paid: the usage log says it) are internal; the caller's notify hook may carry its own secret.
    const { lease_owner: _owner, lease_until: _until, notify_hook: _hook, subscription_parts: _parts, ...rest } = row;
    const entry: Record<string, unknown> = {
      ...rest,
      fail_reason: translate(row.fail_reason, language),
      created_at: row.submit_time,
      image_url: shownImageUrl(ctx.options, row.mj_id, row.image_url),
    };
    if (!scope.isAdmin) for (const column of adminOnlyDrawing) delete entry[column];
    return entry;
  });
}

/**
 * A video task's log entry: its length and, once made, a preview link on the console's own API; the
 * upstream's addresses of the video (`data`) stay on the server.
 */
function videoEntry(row: { task_id: string; status: string; properties: string }): Record<string, unknown> {
  let seconds = 0;
  try {
    seconds = Number((JSON.parse(row.properties) as { seconds?: unknown }).seconds) || 0;
  } catch {
    seconds = 0;
  }
  return {
    data: '',
    video_seconds: seconds,
    preview_url: row.status === 'SUCCESS' ? `/api/task/video/${encodeURIComponent(row.task_id)}/content` : '',
  };
}

/**
 * GET /api/task/ and /api/task/self: music tasks newest first, filtered by task id and the submit
 * time window; a user sees only their own and not the channel. The failure reason is in the
 * viewer's language.
 */
export async function findMusicTasks(ctx: AppContext, scope: TaskScope, query: MusicLogQuery, language: Language) {
  let q = ctx.storage.db.selectFrom('tasks').selectAll();
  if (scope.isAdmin) {
    if (query.channel_id) q = q.where('channel_id', '=', query.channel_id);
  } else {
    q = q.where('user_id', '=', scope.userId);
  }
  if (query.task_id) q = q.where('task_id', '=', query.task_id);
  if (query.start_timestamp) q = q.where('submit_time', '>=', query.start_timestamp);
  if (query.end_timestamp) q = q.where('submit_time', '<=', query.end_timestamp);
  const rows = await q
    .orderBy('id', 'desc')
    .limit(query.page_size)
    .offset(query.p * query.page_size)
    .execute();
  return rows.map((row) => {
    // The poll lease and the refund's bookkeeping are internal; the upstream's task id and the paying token are the operators'.
    const { lease_owner: _owner, lease_until: _until, subscription_parts: _parts, ...entry } = row as Record<string, unknown>;
    entry.fail_reason = translate(row.fail_reason, language);
    if (row.platform === 'video') Object.assign(entry, videoEntry(row));
    if (!scope.isAdmin) for (const column of adminOnlyMusic) delete entry[column];
    return entry;
  });
}
