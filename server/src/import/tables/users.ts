import type { TableMapper } from '../table-import.js';
import { int, text, textOrNull, unixSeconds, inexactInteger } from '../values.js';

/**
 * users: bcrypt hashes are copied as they are (bcryptjs checks Go's $2a$ hashes), so every
 * password keeps working. new-api keeps the invite history in `aff_history`; one-api has no invite
 * counters, soft delete or settings.
 */
export const usersMapper: TableMapper<'users'> = {
  source: 'users',
  target: 'users',
  noun: 'user',
  nameColumn: 'username',
  naturalKey: 'username',
  // Unique in ModelGate (the third-party ids when bound): another user holding one is a clash.
  uniqueColumns: ['username', 'aff_code', 'access_token', 'github_id', 'oidc_id', 'wechat_id', 'telegram_id', 'linux_do_id'],
  references: { inviter_id: 'users' },
  // An inviter later in the source is placed only after this row is checked.
  uncompared: ['inviter_id'],
  droppedColumns: ['lark_id', 'discord_id', 'stripe_customer', 'last_login_at'],
  map(row, ctx) {
    const id = int(row.id);
    const username = text(row.username).trim();
    if (id <= 0) return 'it has no id';
    const inexact = inexactInteger(row, ['quota', 'used_quota', 'request_count', 'aff_quota', 'aff_history']);
    if (inexact) return inexact;
    if (username === '') return 'it has no username';
    if (username.length > 64) return 'its username is longer than 64 characters';
    const password = text(row.password);
    if (password.length > 255) return 'its password hash is longer than 255 characters';
    const has = (column: string) => ctx.schema.has('users', column);
    return {
      id,
      username,
      password,
      display_name: text(row.display_name).slice(0, 64),
      role: int(row.role, 1),
      status: int(row.status, 1),
      email: text(row.email).slice(0, 191),
      github_id: text(row.github_id),
      oidc_id: text(row.oidc_id),
      wechat_id: text(row.wechat_id),
      telegram_id: text(row.telegram_id),
      linux_do_id: text(row.linux_do_id),
      access_token: textOrNull(row.access_token),
      quota: int(row.quota),
      used_quota: int(row.used_quota),
      request_count: int(row.request_count),
      group: text(row.group, 'default') || 'default',
      aff_code: textOrNull(row.aff_code),
      aff_count: int(row.aff_count),
      aff_quota: int(row.aff_quota),
      aff_history_quota: int(has('aff_history') ? row.aff_history : row.aff_history_quota),
      inviter_id: int(row.inviter_id),
      setting: text(row.setting),
      remark: text(row.remark).slice(0, 255),
      created_time: int(row.created_at ?? row.created_time),
      deleted_at: unixSeconds(row.deleted_at),
    };
  },
};
