import type { TableMapper } from '../table-import.js';
import { flag, int, text, unixSeconds, inexactInteger } from '../values.js';

const keyMaxLength = 48;

/**
 * tokens: the key is copied byte for byte. Both gateways store it without the `sk-` that clients
 * send and match the part before the first `-` (a `-<channel id>` suffix pins a channel); ModelGate
 * does the same, so every client keeps working unchanged. one-api's `models` and `subnet` become
 * the model limits and the IP allow list.
 */
export const tokensMapper: TableMapper<'tokens'> = {
  source: 'tokens',
  target: 'tokens',
  noun: 'token',
  nameColumn: 'name',
  naturalKey: 'key',
  // A key that ModelGate holds for another token (of any user) is a clash: a token stays with its user.
  uniqueColumns: ['key'],
  references: { user_id: 'users' },
  rowNotes(row) {
    // Clients send `sk-<key>[-<channel id>]`: a stored key with a "-" could not be sent to the old
    // gateway either. It is kept as it is, and named here.
    return text(row.key).includes('-')
      ? ['its key contains "-", so no client can send it (the part after "-" is read as a channel id)']
      : [];
  },
  map(row, ctx) {
    const id = int(row.id);
    const key = text(row.key);
    const userId = int(row.user_id);
    if (id <= 0) return 'it has no id';
    const inexact = inexactInteger(row, ['remain_quota', 'used_quota']);
    if (inexact) return inexact;
    if (key.trim() === '') return 'it has no key';
    if (key.length > keyMaxLength) return `its key is longer than ${keyMaxLength} characters`;
    if (!ctx.ids.isImported('users', userId)) return `its user ${userId} is not imported`;
    const isOneApi = ctx.schema.flavor === 'one-api';
    const oneApiModels = text(row.models).trim();
    return {
      id,
      user_id: userId,
      key,
      status: int(row.status, 1),
      name: text(row.name).slice(0, 191),
      created_time: int(row.created_time),
      accessed_time: int(row.accessed_time),
      expired_time: int(row.expired_time, -1),
      remain_quota: int(row.remain_quota),
      unlimited_quota: flag(row.unlimited_quota),
      model_limits_enabled: isOneApi ? (oneApiModels === '' ? 0 : 1) : flag(row.model_limits_enabled),
      model_limits: isOneApi ? oneApiModels : text(row.model_limits),
      allow_ips: isOneApi ? text(row.subnet) : text(row.allow_ips),
      used_quota: int(row.used_quota),
      group: text(row.group).slice(0, 64),
      deleted_at: unixSeconds(row.deleted_at),
    };
  },
};
