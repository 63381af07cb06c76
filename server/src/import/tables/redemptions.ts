import type { TableMapper } from '../table-import.js';
import { int, text, unixSeconds, inexactInteger } from '../values.js';

/** redemptions: codes keep their key, state and who redeemed them. */
export const redemptionsMapper: TableMapper<'redemptions'> = {
  source: 'redemptions',
  target: 'redemptions',
  noun: 'redemption code',
  nameColumn: 'name',
  naturalKey: 'key',
  uniqueColumns: ['key'],
  // Who made the code and who redeemed it follow those users.
  references: { user_id: 'users', used_user_id: 'users' },
  map(row) {
    const id = int(row.id);
    const key = text(row.key).trim();
    if (id <= 0) return 'it has no id';
    const inexact = inexactInteger(row, ['quota']);
    if (inexact) return inexact;
    if (key === '') return 'it has no key';
    if (key.length > 32) return 'its key is longer than 32 characters';
    return {
      id,
      user_id: int(row.user_id),
      key,
      status: int(row.status, 1),
      name: text(row.name).slice(0, 191),
      quota: int(row.quota, 100),
      created_time: int(row.created_time),
      redeemed_time: int(row.redeemed_time),
      used_user_id: int(row.used_user_id),
      expired_time: int(row.expired_time),
      deleted_at: unixSeconds(row.deleted_at),
    };
  },
};
