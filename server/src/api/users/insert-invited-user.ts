import type { Insertable } from 'kysely';
import { insertReturningId, nowSeconds } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { logSignUpRewards } from './reward-logs.js';

export type NewUserRow = Pick<
  Insertable<Database['users']>,
  'username' | 'password' | 'display_name' | 'email' | 'github_id' | 'oidc_id' | 'wechat_id' | 'telegram_id' | 'linux_do_id'
>;

/**
 * Inserts a regular user with QuotaForNewUser. With a valid invite code the inviter earns
 * QuotaForInviter (as invite earnings) and the invitee QuotaForInvitee, in the same transaction as
 * the insert, each with its system log row (reward-logs.ts). Unique violations are left to the
 * caller, which knows which column it set.
 */
export async function insertInvitedUser(ctx: AppContext, row: NewUserRow, affCode: string): Promise<number> {
  const { options, storage } = ctx;
  const inviter =
    affCode === ''
      ? undefined
      : await storage.db
          .selectFrom('users')
          .select(['id', 'username'])
          .where('aff_code', '=', affCode)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
  const inviterReward = inviter ? options.number('QuotaForInviter') : 0;
  const inviteeReward = inviter ? options.number('QuotaForInvitee') : 0;
  const newUserReward = options.number('QuotaForNewUser');
  const id = await storage.db.transaction().execute(async (trx) => {
    const now = nowSeconds();
    const newId = await insertReturningId({ ...storage, db: trx }, 'users', {
      ...row,
      quota: newUserReward + inviteeReward,
      inviter_id: inviter?.id ?? 0,
      created_time: now,
    });
    if (inviter) {
      await trx
        .updateTable('users')
        .set((eb) => ({
          aff_count: eb('aff_count', '+', 1),
          aff_quota: eb('aff_quota', '+', inviterReward),
          aff_history_quota: eb('aff_history_quota', '+', inviterReward),
        }))
        .where('id', '=', inviter.id)
        .execute();
    }
    await logSignUpRewards(
      trx,
      options,
      {
        newUser: { userId: newId, username: row.username, quota: newUserReward },
        ...(inviter
          ? {
              invitee: { userId: newId, username: row.username, quota: inviteeReward },
              inviter: { userId: inviter.id, username: inviter.username, quota: inviterReward },
            }
          : {}),
      },
      now,
    );
    return newId;
  });
  if (inviter) await ctx.bus.publish('users', String(inviter.id));
  return id;
}
