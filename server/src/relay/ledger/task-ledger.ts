import { LogType, type LogOtherFields } from '@modelgate/shared';
import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../db/index.js';
import type { Database } from '../../db/schema.js';
import { storableText, toStorableRow } from './log-rows.js';
import { autoGroupLogFields, consumeLogRow } from './consume-log.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { RelayState } from '../state.js';
import { returnFunding, type Funding, type FundingPart } from '../../subscriptions/funding.js';
import { fundingLogFields, type SettledFunding } from './funding-settle.js';
import { forgetHeldShares, partsOf, partsText } from '../../subscriptions/funding-holds.js';

/** Task states after which nothing changes (and nothing more is billed or refunded). */
export const finalStatuses = ['SUCCESS', 'FAILURE'] as const;

/** Every state a task may be polled in (an IN list the status index serves, unlike NOT IN). */
export const unfinishedStatuses = ['', 'NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'UNKNOWN', 'MODAL'] as const;

/** Where tasks live: Suno (and other platforms) in `tasks`, Midjourney drawings in `midjourneys`. */
export type TaskTable = 'tasks' | 'midjourneys';

/** The column holding the gateway's task id (the one clients see) in each table. */
export const taskIdColumn = { tasks: 'task_id', midjourneys: 'mj_id' } as const;

/**
 * Both tables share the columns the ledger, the poller and the lease touch (status, progress,
 * fail_reason, finish_time, lease_*, user/token/channel ids, quota, action, upstream_id): code written
 * once for both names the table through these, typed as `tasks`, and touches only those columns.
 */
export const sharedTable = (table: TaskTable) => table as 'tasks';
export const sharedIdColumn = (table: TaskTable) => taskIdColumn[table] as 'task_id';

/** What a submit is billed for; the task row itself is written by `record` in the same transaction. */
export interface NewTask {
  /** The gateway's task id, the only one clients see. */
  taskId: string;
  /** Names the task in log rows ("suno", "Midjourney"). */
  platform: string;
  action: string;
  model: string;
  channelId: number;
  quota: number;
  /** The price's split between subscription allowances and the wallet (funding-settle.ts splitFunded); null: the wallet pays it all. */
  funding: SettledFunding | null;
  record(trx: Transaction<Database>, now: number): Promise<void>;
}

/**
 * Records an accepted task and takes its price, in one transaction: the task row, the user's and
 * token's quota (and the channel's used quota) by atomic increments, and the consume log row. The
 * in-memory copies are re-read afterwards on every instance (bus), so a later balance check sees it.
 * A price subscription allowances helped pay was taken from them before (the hold, funding-hold.ts):
 * the user's wallet is charged its part only, the row says who paid, and the task row keeps the parts
 * for a refund; when the transaction fails the parts are given back.
 */
export async function chargeTask(
  ctx: AppContext,
  payers: Payers,
  caller: RelayCaller,
  task: NewTask,
  ip: string,
  startedAt: number,
): Promise<void> {
  const now = nowSeconds();
  const { user, token } = caller;
  const { funding } = task;
  const walletQuota = task.quota - Math.min(task.quota, funding?.fromSubscription ?? 0);
  await ctx.storage.db
    .transaction()
    .execute(async (trx) => {
      await task.record(trx, now);
      // The share is billed with the task: its held row goes.
      if (funding?.holdId) await forgetHeldShares(trx, [funding.holdId]);
      if (task.quota === 0) return;
      await trx
        .updateTable('users')
        .set({ quota: sql`quota - ${walletQuota}`, used_quota: sql`used_quota + ${walletQuota}`, request_count: sql`request_count + 1` })
        .where('id', '=', user.id)
        .execute();
      if (token) {
        await trx
          .updateTable('tokens')
          .set(
            token.isUnlimited
              ? { used_quota: sql<number>`used_quota + ${task.quota}`, accessed_time: now }
              : {
                  remain_quota: sql<number>`remain_quota - ${task.quota}`,
                  used_quota: sql<number>`used_quota + ${task.quota}`,
                  accessed_time: now,
                },
          )
          .where('id', '=', token.id)
          .execute();
      }
      await trx
        .updateTable('channels')
        .set({ used_quota: sql`used_quota + ${task.quota}` })
        .where('id', '=', task.channelId)
        .execute();
      const row = consumeLogRow({
        caller,
        model: task.model,
        quota: task.quota,
        promptTokens: 0,
        completionTokens: 0,
        channelId: task.channelId,
        isStream: false,
        startedAt,
        now: Date.now(),
        content: `${task.platform} 任务 ${task.taskId}（${task.action}）`,
        ip,
        other: {
          task_id: task.taskId,
          platform: task.platform,
          action: task.action,
          ...autoGroupLogFields(caller, caller.group),
          ...(funding ? fundingLogFields(funding, task.quota) : {}),
        },
      });
      await trx
        .insertInto('logs')
        .values({ ...toStorableRow(row), created_at: now })
        .execute();
    })
    .catch(async (error: unknown) => {
      if (funding && funding.parts.length > 0) {
        await payers.holds.giveBack(user.id, funding.holdId, funding.parts).catch((cause: unknown) => {
          payers.log.error({ err: cause, userId: user.id, parts: funding.parts }, 'subscription quota of an unrecorded task not returned');
        });
      }
      throw error;
    });
  await reloadPayers(ctx, payers, user.id, token?.id ?? 0);
}

/**
 * A task row's `subscription_parts` (migration 0012): the parts as JSON (`[]` when a user with
 * subscription funding had the wallet pay it all, so the refund row says so too), '' for a user without.
 */
export function subscriptionPartsText(funding: Funding | null): string {
  return funding ? partsText(funding.parts) : '';
}

/**
 * Gives a failed task's price back to where it came from, in the refund's transaction: each
 * subscription part to its allowance (the period it was taken from: a part of a period that has
 * ended is not given back, the allowance reset since), the rest to the wallet. Answers what went back.
 */
async function refundSources(trx: Transaction<Database>, quota: number, text: string): Promise<{ wallet: number; returned: Funding }> {
  const parts = partsOf(text);
  const wallet =
    quota -
    Math.min(
      quota,
      parts.reduce((total, part) => total + part.amount, 0),
    );
  const back: FundingPart[] = [];
  for (const part of parts) {
    if ((await returnFunding(trx, [part])).returned === part.amount) back.push(part);
  }
  const fromSubscription = back.reduce((total, part) => total + part.amount, 0);
  return { wallet, returned: { preference: 'subscription_first', fromSubscription, fromWallet: wallet, uncovered: 0, parts: back } };
}

/** The relay's in-memory copies of users and tokens, re-read after a task changes their quota (and its log). */
export type Payers = Pick<RelayState, 'usage' | 'access' | 'log' | 'holds'>;

/** The user's and token's cached rows are re-read on every instance (this one at once, the others through the bus). */
async function reloadPayers(ctx: AppContext, payers: Payers, userId: number, tokenId: number): Promise<void> {
  await payers.usage.exclusive(async () => {
    await payers.access.reloadUsers(userId);
    if (tokenId) await payers.access.reloadTokens(tokenId);
  });
  await ctx.bus.publish('users', String(userId));
  if (tokenId) await ctx.bus.publish('tokens', String(tokenId));
}

/**
 * Ends a task in FAILURE and gives its quota back, exactly once: the conditional UPDATE moves only a
 * task that is not final yet, so two instances (or a poll and a timeout) cannot both refund; the
 * refund (user, token, channel, and a refund log row, type 6) is in the same transaction. What
 * subscription allowances paid goes back to them (refundSources), only the rest to the wallet; the
 * refund row says so as a consume row does. Returns whether this call refunded.
 */
export async function failAndRefund(
  ctx: AppContext,
  payers: Payers,
  table: TaskTable,
  taskId: string,
  reason: string,
  progress = '100%',
): Promise<boolean> {
  const now = nowSeconds();
  const refunded = await ctx.storage.db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable(sharedTable(table))
      .set({
        status: 'FAILURE',
        fail_reason: storableText(reason, 0),
        progress,
        finish_time: now,
        lease_owner: '',
        lease_until: 0,
        ...(table === 'tasks' ? { updated_at: now } : {}),
      })
      .where(sharedIdColumn(table), '=', taskId)
      .where('status', 'not in', [...finalStatuses])
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return null;
    const task = await trx
      .selectFrom(sharedTable(table))
      .select(['user_id', 'token_id', 'channel_id', 'quota', 'action', 'subscription_parts'])
      .where(sharedIdColumn(table), '=', taskId)
      .executeTakeFirstOrThrow();
    const platform =
      table === 'midjourneys'
        ? 'Midjourney'
        : ((await trx.selectFrom('tasks').select('platform').where('task_id', '=', taskId).executeTakeFirst())?.platform ?? '');
    const price = Number(task.quota);
    if (price > 0) {
      const { wallet, returned } = await refundSources(trx, price, task.subscription_parts);
      const quota = wallet + returned.fromSubscription;
      await trx
        .updateTable('users')
        .set({ quota: sql`quota + ${wallet}`, used_quota: sql`used_quota - ${wallet}` })
        .where('id', '=', task.user_id)
        .execute();
      if (task.token_id)
        await trx
          .updateTable('tokens')
          .set({ remain_quota: sql<number>`remain_quota + ${quota}`, used_quota: sql<number>`used_quota - ${quota}` })
          .where('id', '=', task.token_id)
          .where('unlimited_quota', '=', 0)
          .execute();
      if (task.token_id)
        await trx
          .updateTable('tokens')
          .set({ used_quota: sql<number>`used_quota - ${quota}` })
          .where('id', '=', task.token_id)
          .where('unlimited_quota', '<>', 0)
          .execute();
      await trx
        .updateTable('channels')
        .set({ used_quota: sql`used_quota - ${quota}` })
        .where('id', '=', task.channel_id)
        .execute();
      const user = await trx.selectFrom('users').select('username').where('id', '=', task.user_id).executeTakeFirst();
      const token = task.token_id
        ? await trx.selectFrom('tokens').select('name').where('id', '=', task.token_id).executeTakeFirst()
        : undefined;
      await trx
        .insertInto('logs')
        .values({
          user_id: task.user_id,
          created_at: now,
          type: LogType.refund,
          content: storableText(`${platform} 任务 ${taskId}（${task.action}）失败，退还额度：${reason}`, 0),
          username: user?.username ?? '',
          token_name: storableText(token?.name ?? '', 191),
          model_name: '',
          quota,
          prompt_tokens: 0,
          completion_tokens: 0,
          use_time: 0,
          is_stream: 0,
          channel_id: task.channel_id,
          token_id: task.token_id,
          group: '',
          ip: '',
          other: JSON.stringify({
            task_id: taskId,
            refund: quota,
            ...(task.subscription_parts ? fundingLogFields(returned, quota) : {}),
          } satisfies LogOtherFields),
        })
        .execute();
    }
    return { userId: task.user_id, tokenId: task.token_id };
  });
  if (!refunded) return false;
  await reloadPayers(ctx, payers, refunded.userId, refunded.tokenId);
  return true;
}
