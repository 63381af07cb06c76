import { LogType } from '@modelgate/shared';
import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { OptionStore } from '../../options/store.js';
import { formatQuota } from './format-quota.js';

/** Who receives a sign-up reward and how much (0: no row). */
export interface Reward {
  userId: number;
  username: string;
  quota: number;
}

/** The quota a new account is given and the invite rewards on both sides. */
export interface SignUpRewards {
  newUser: Reward;
  /** QuotaForInvitee, when an invite code was used. */
  invitee?: Reward;
  /** QuotaForInviter, to the owner of the invite code (earned as invite quota). */
  inviter?: Reward;
}

const rewardTexts = {
  newUser: (quota: string) => `新用户注册赠送 ${quota}`,
  invitee: (quota: string) => `使用邀请码赠送 ${quota}`,
  inviter: (quota: string) => `邀请用户赠送 ${quota}`,
} as const;

/**
 * Writes the system log rows (type 4) of sign-up rewards, as new-api does, in the caller's
 * transaction: the new user's QuotaForNewUser, and with an invite code QuotaForInvitee (to the new
 * user) and QuotaForInviter (to the inviter). A reward of 0 writes nothing.
 */
export async function logSignUpRewards(
  trx: Transaction<Database>,
  options: OptionStore,
  rewards: SignUpRewards,
  now: number,
): Promise<void> {
  const rows = (Object.keys(rewardTexts) as (keyof typeof rewardTexts)[])
    .map((kind) => ({ kind, reward: rewards[kind] }))
    .filter((entry): entry is { kind: keyof typeof rewardTexts; reward: Reward } => entry.reward !== undefined && entry.reward.quota > 0)
    .map(({ kind, reward }) => ({
      user_id: reward.userId,
      username: reward.username,
      created_at: now,
      type: LogType.system,
      quota: reward.quota,
      content: rewardTexts[kind](formatQuota(options, reward.quota)),
    }));
  for (const row of rows) await trx.insertInto('logs').values(row).execute();
}
