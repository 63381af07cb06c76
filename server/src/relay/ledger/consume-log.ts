import { LogType, type LogOtherFields } from '@modelgate/shared';
import type { NewLog } from '../../db/schema.js';
import type { RelayCaller } from '../pipeline/authenticate.js';

/** Who a consume log row is for: a relay caller, or what a queued row kept of it (settle.ts). */
export interface LogCaller {
  user: { id: number; username: string };
  token: { id: number; name: string } | null;
  group: string;
}

/** What one billed call puts in its consume log row (type 2), whatever kind of call it was. */
export interface ConsumeLogFields {
  caller: LogCaller;
  /** The model the caller asked for. */
  model: string;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  channelId: number;
  isStream: boolean;
  /** ms: when the call started and when it was billed. */
  startedAt: number;
  now: number;
  /** "模型倍率 …" (how the quota was computed), or what the task was. */
  content: string;
  /** The `other` JSON: ratios, usage details, the channels tried (typed as the console reads it). */
  other: LogOtherFields;
  ip?: string;
  /** The username and token name as they were at settle (the flush may build the row later). */
  username?: string;
  tokenName?: string;
  /** The group that served the call, when not the caller's (a cross-group retry). */
  group?: string;
}

/**
 * What the `other` JSON says about an `auto` token's group (new-api's): `auto_group`, the group the
 * call used, and `requested_group` 'auto'. Nothing for any other caller.
 */
export function autoGroupLogFields(caller: RelayCaller, usedGroup: string): Record<string, string> {
  return caller.autoGroups === null ? {} : autoGroupFields(usedGroup);
}

/** The `other` fields of a call of an `auto` token that used `usedGroup`. */
export const autoGroupFields = (usedGroup: string): Record<string, string> => ({ auto_group: usedGroup, requested_group: 'auto' });

/**
 * The one consume log row builder of the ledger: relayed calls (settle), Realtime sessions and task
 * submits all write their type 2 rows through it, so the columns mean the same for each. Text columns
 * are made storable where the row is written (log-rows.ts toStorableRow, or by the task ledger).
 */
export function consumeLogRow(fields: ConsumeLogFields): NewLog {
  const { caller } = fields;
  return {
    user_id: caller.user.id,
    created_at: Math.floor(fields.now / 1000),
    type: LogType.consume,
    content: fields.content,
    username: fields.username ?? caller.user.username,
    token_name: fields.tokenName ?? caller.token?.name ?? '',
    model_name: fields.model,
    quota: fields.quota,
    prompt_tokens: fields.promptTokens,
    completion_tokens: fields.completionTokens,
    use_time: Math.max(0, Math.floor((fields.now - fields.startedAt) / 1000)),
    is_stream: fields.isStream ? 1 : 0,
    channel_id: fields.channelId,
    token_id: caller.token?.id ?? 0,
    group: fields.group ?? caller.group,
    ip: fields.ip ?? '',
    other: JSON.stringify(fields.other),
  };
}
