import { LogType } from '@modelgate/shared';
import type { SelectQueryBuilder } from 'kysely';
import { nowSeconds } from '../../db/index.js';
import type { Database, LogRow } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { translate, type Language } from '../../lib/i18n/index.js';
import type { LogQuery } from './schemas.js';

/** Whose logs a query reads: every user's (admin, who may filter by username and channel) or one user's. */
export type LogScope = { isAdmin: true } | { isAdmin: false; userId: number };

type LogSelect<O> = SelectQueryBuilder<Database, 'logs', O>;

function applyFilters<O>(query: LogSelect<O>, scope: LogScope, filters: LogQuery, withTime = true): LogSelect<O> {
  let q = query;
  if (scope.isAdmin) {
    if (filters.username) q = q.where('username', '=', filters.username);
    if (filters.channel) q = q.where('channel_id', '=', filters.channel);
  } else {
    q = q.where('user_id', '=', scope.userId);
  }
  if (filters.type) q = q.where('type', '=', filters.type);
  if (filters.token_name) q = q.where('token_name', '=', filters.token_name);
  if (filters.model_name) q = q.where('model_name', '=', filters.model_name);
  if (filters.group) q = q.where('group', '=', filters.group);
  if (withTime && filters.start_timestamp) q = q.where('created_at', '>=', filters.start_timestamp);
  if (withTime && filters.end_timestamp) q = q.where('created_at', '<=', filters.end_timestamp);
  return q;
}

/** other.admin_info (which channels were tried) is for operators only. */
function withoutAdminInfo(other: string): string {
  if (!other.includes('admin_info')) return other;
  try {
    const parsed = JSON.parse(other) as Record<string, unknown>;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return other;
    delete parsed.admin_info;
    return JSON.stringify(parsed);
  } catch {
    return other;
  }
}

/** A log row as its owner sees it: no channel, no admin_info, the details in the reader's language. */
export function userLogView({ channel_id: _channel, ...row }: LogRow, language: Language) {
  return { ...row, content: translate(row.content, language), other: withoutAdminInfo(row.other) };
}

async function channelNames(ctx: AppContext, rows: LogRow[]): Promise<Map<number, string>> {
  const ids = [...new Set(rows.map((row) => row.channel_id).filter((id) => id > 0))];
  if (ids.length === 0) return new Map();
  const channels = await ctx.storage.db.selectFrom('channels').select(['id', 'name']).where('id', 'in', ids).execute();
  return new Map(channels.map((channel) => [channel.id, channel.name]));
}

/**
 * GET /api/log/ and /api/log/self/: newest first; admins also get channel and channel_name. The
 * details (content, stored in Chinese as they were written) are in the viewer's language.
 */
export async function findLogs(ctx: AppContext, scope: LogScope, filters: LogQuery, language: Language) {
  const db = ctx.storage.db;
  const [rows, count] = await Promise.all([
    applyFilters(db.selectFrom('logs').selectAll(), scope, filters)
      .orderBy('id', 'desc')
      .limit(filters.page_size)
      .offset((filters.p - 1) * filters.page_size)
      .execute(),
    applyFilters(
      db.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('total')),
      scope,
      filters,
    ).executeTakeFirstOrThrow(),
  ]);
  let items;
  if (scope.isAdmin) {
    const names = await channelNames(ctx, rows);
    items = rows.map((row) => ({
      ...row,
      content: translate(row.content, language),
      channel: row.channel_id,
      channel_name: names.get(row.channel_id) ?? '',
    }));
  } else {
    items = rows.map((row) => userLogView(row, language));
  }
  return { items, page: filters.p, page_size: filters.page_size, total: Number(count.total) };
}

/**
 * GET /api/log/stat and /api/log/self/stat: quota used by the matching consumption logs, and the
 * requests (rpm) and tokens (tpm) of those in the last 60 seconds.
 */
export async function getLogStat(ctx: AppContext, scope: LogScope, filters: LogQuery) {
  const db = ctx.storage.db;
  const consume = { ...filters, type: LogType.consume };
  const [total, recent] = await Promise.all([
    applyFilters(
      db.selectFrom('logs').select((eb) => eb.fn.sum<number>('quota').as('quota')),
      scope,
      consume,
    ).executeTakeFirst(),
    applyFilters(
      db
        .selectFrom('logs')
        .select((eb) => [
          eb.fn.countAll<number>().as('requests'),
          eb.fn.sum<number>(eb('prompt_tokens', '+', eb.ref('completion_tokens'))).as('tokens'),
        ]),
      scope,
      consume,
      false,
    )
      .where('created_at', '>=', nowSeconds() - 60)
      .executeTakeFirst(),
  ]);
  return {
    quota: Number(total?.quota ?? 0),
    rpm: Number(recent?.requests ?? 0),
    tpm: Number(recent?.tokens ?? 0),
  };
}
