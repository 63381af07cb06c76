import type { NewLog } from '../../db/schema.js';

/** A queued consume log: the row, or a record that builds it at flush time (settle's ConsumeLogRecord). */
export type PendingLog = NewLog | { toRow(): NewLog };

/** The logs columns in insert order (putLogValues writes them in this order). */
export const logColumns = [
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'use_time',
  'is_stream',
  'channel_id',
  'token_id',
  'group',
  'ip',
  'other',
] as const satisfies ReadonlyArray<keyof NewLog>;

/** Width of the varchar columns of logs (0001_initial); text columns (content, other) have none. */
const textLimits = { username: 64, token_name: 191, model_name: 191, group: 64, ip: 64 } as const;

/** NUL (PostgreSQL rejects it in text) or any surrogate (a lone one is invalid UTF-8 for every database). */
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const unsafeText = /[\u0000\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- as above
const nulByte = /\u0000/g;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** String.prototype.toWellFormed (ES2024, past this project's ES2023 lib). */
const wellFormed = (text: string): string => text.replace(loneSurrogate, '\uFFFD');

/**
 * Text as every database stores it: NUL bytes removed, lone surrogates replaced (U+FFFD), cut to the
 * column's width in characters. Model names and the like come from client bodies; a row PostgreSQL
 * or MySQL rejects would otherwise be set aside. Clean short strings are returned as they are.
 */
export function storableText(value: string, limit: number): string {
  let text = value;
  if (unsafeText.test(text)) text = wellFormed(text.replace(nulByte, ''));
  if (limit > 0 && text.length > limit) text = wellFormed(text.slice(0, limit));
  return text;
}

/** The row of a queued log, its text columns made storable (runs at flush time, off the request path). */
export function toStorableRow(log: PendingLog): NewLog {
  const isRecord = 'toRow' in log && typeof log.toRow === 'function';
  const row = isRecord ? log.toRow() : (log as NewLog);
  // A record's `other` is JSON.stringify's output, which escapes NUL and lone surrogates: not scanned.
  if (!isRecord && typeof row.other === 'string') row.other = storableText(row.other, 0);
  // Column by column (a loop over the names would make every access a megamorphic keyed load).
  if (typeof row.content === 'string') row.content = storableText(row.content, 0);
  if (typeof row.username === 'string') row.username = storableText(row.username, textLimits.username);
  if (typeof row.token_name === 'string') row.token_name = storableText(row.token_name, textLimits.token_name);
  if (typeof row.model_name === 'string') row.model_name = storableText(row.model_name, textLimits.model_name);
  if (typeof row.group === 'string') row.group = storableText(row.group, textLimits.group);
  if (typeof row.ip === 'string') row.ip = storableText(row.ip, textLimits.ip);
  return row;
}

/** Writes a row's values in logColumns order at `at` (the migration's default for a left-out column); returns the next index. */
export function putLogValues(values: Array<string | number>, at: number, row: NewLog): number {
  values[at] = row.user_id ?? 0;
  values[at + 1] = row.created_at;
  values[at + 2] = row.type;
  values[at + 3] = row.content ?? '';
  values[at + 4] = row.username ?? '';
  values[at + 5] = row.token_name ?? '';
  values[at + 6] = row.model_name ?? '';
  values[at + 7] = row.quota ?? 0;
  values[at + 8] = row.prompt_tokens ?? 0;
  values[at + 9] = row.completion_tokens ?? 0;
  values[at + 10] = row.use_time ?? 0;
  values[at + 11] = row.is_stream ?? 0;
  values[at + 12] = row.channel_id ?? 0;
  values[at + 13] = row.token_id ?? 0;
  values[at + 14] = row.group ?? '';
  values[at + 15] = row.ip ?? '';
  values[at + 16] = row.other ?? '';
  return at + 17;
}
