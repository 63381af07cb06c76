import type { AppContext } from '../../context.js';
import { findGroupRatio, findModelPricing } from '../billing/pricing.js';
import { computeQuota } from '../billing/quota.js';
import { RelayError, UpstreamError, publicErrorOf, relayErrors, upstreamLogFields } from '../errors.js';
import { checkModelAllowed, type RelayCaller } from '../pipeline/authenticate.js';
import type { RelayChannel } from '../pipeline/channel-index.js';
import { targetOf } from '../pipeline/dispatch.js';
import { onUpstreamFailure } from '../pipeline/upstream-failure.js';
import { releaseHold, reserve } from '../ledger/hold.js';
import { TaskRefusal } from '../providers/shared/task-json.js';
import type { UpstreamTarget } from '../providers/types.js';
import type { RelayState } from '../state.js';
import { chargeTask, type NewTask } from './ledger.js';

/** One task to submit: a per-call model, how one channel accepts it, and how its row is written. */
export interface TaskSubmission<Accepted> {
  platform: string;
  action: string;
  model: string;
  ip: string;
  /** A follow-up action goes to the channel of the task it acts on, and nowhere else. */
  channelId?: number;
  /** The gateway's id for a new task. */
  newTaskId(): string;
  /** Submits to one channel; throws an UpstreamError when the channel refuses. */
  send(channel: RelayChannel, target: UpstreamTarget): Promise<Accepted>;
  /**
   * The caller's task the accepted answer names when the upstream says it already has it (Midjourney's
   * code 21 with an id the gateway recorded): answered with that task, not recorded or billed again.
   */
  existingTask?(channel: RelayChannel, accepted: Accepted): Promise<string | null>;
  /** Writes the task row (in the billing transaction). */
  record(trx: Parameters<NewTask['record']>[0], row: AcceptedTask, accepted: Accepted, now: number): Promise<void>;
}

/** Who and what a task row records, once a channel accepted it. */
export interface AcceptedTask {
  taskId: string;
  userId: number;
  tokenId: number;
  channelId: number;
  quota: number;
}

/** The gateway could not build a task's request: logged with its cause, counted against no channel. */
function taskBuildFailed(relay: RelayState, channel: RelayChannel, cause: unknown): RelayError {
  relay.log.error({ err: cause, channelId: channel.id }, 'task request could not be built');
  return new RelayError(400, 'request_build_failed', `请求无法转换为渠道 #${channel.id} 的上游格式`);
}

/** The price of one task action: ModelPrice × group ratio; an unpriced action is refused. */
function priceOf(ctx: AppContext, caller: RelayCaller, model: string): number {
  const pricing = findModelPricing(ctx.options, model);
  const isFree = ctx.options.bool('SelfUseModeEnabled') || caller.user.acceptsUnsetModels;
  if ((!pricing.isKnown || pricing.quotaType !== 1) && !isFree) throw relayErrors.unpricedTask(model);
  const quota = computeQuota(pricing, findGroupRatio(ctx.options, caller.group), { promptTokens: 0, completionTokens: 0, cachedTokens: 0 }, ctx.options.number('QuotaPerUnit'), 1);
  return pricing.quotaType === 1 ? quota : 0;
}

/**
 * Submits a task with failover (as chat: group, model, priority, weight; RetryTimes other channels
 * on a retryable failure) under a hold of its price, then records it and takes the price durably
 * (ledger.ts). Returns the gateway's task id. Nothing is billed when no channel accepts it.
 */
export async function submitTask<Accepted>(ctx: AppContext, relay: RelayState, caller: RelayCaller, submission: TaskSubmission<Accepted>): Promise<{ taskId: string; accepted: Accepted }> {
  const startedAt = Date.now();
  checkModelAllowed(caller, submission.model);
  // A model no enabled channel serves is unknown here, priced or not (a follow-up goes to its task's channel).
  const isRouted = submission.channelId !== undefined || caller.pinnedChannelId !== null;
  if (!isRouted && !relay.channels.hasModel(caller.group, submission.model)) throw relayErrors.noChannel(caller.group, submission.model);
  const quota = priceOf(ctx, caller, submission.model);
  const hold = reserve(caller, quota);
  try {
    const failed = new Set<number>();
    const pinned = submission.channelId ?? caller.pinnedChannelId;
    const attempts = pinned !== null ? 1 : 1 + Math.max(0, ctx.options.number('RetryTimes'));
    let accepted: { channel: RelayChannel; answer: Accepted } | null = null;
    let lastError: UpstreamError | null = null;
    let lastChannel: RelayChannel | null = null;
    for (let attempt = 0; attempt < attempts && !accepted; attempt += 1) {
      const channel = pinned !== null ? relay.channels.findById(pinned) : relay.channels.select(caller.group, submission.model, failed);
      if (!channel) break;
      const target = targetOf(channel, relay.dispatcher);
      try {
        accepted = { channel, answer: await submission.send(channel, target) };
        relay.cooldown.onSuccess(channel.id);
      } catch (error) {
        if (error instanceof TaskRefusal) throw error;
        // Only the upstream's own answer or connection counts against a channel (task-json.ts says which is which).
        if (!(error instanceof UpstreamError)) throw error instanceof RelayError ? error : taskBuildFailed(relay, channel, error);
        const failure = error;
        failed.add(channel.id);
        lastError = failure;
        lastChannel = channel;
        if (!onUpstreamFailure(ctx, relay, channel, target.key, failure)) break;
      }
    }
    if (!accepted) {
      if (!lastError && submission.channelId !== undefined) throw new RelayError(503, 'channel_unavailable', `原任务的渠道 #${submission.channelId} 已不可用`);
      if (!lastError) throw relayErrors.noChannel(caller.group, submission.model);
      relay.log.warn(upstreamLogFields(lastError, lastChannel?.id), 'task submit failed');
      throw publicErrorOf(lastError);
    }
    // Accepted upstream: recorded and billed in one transaction (never retried on another channel).
    const { channel, answer } = accepted;
    const existing = await submission.existingTask?.(channel, answer);
    if (existing) return { taskId: existing, accepted: answer };
    const taskId = submission.newTaskId();
    const row: AcceptedTask = { taskId, userId: caller.user.id, tokenId: caller.token?.id ?? 0, channelId: channel.id, quota };
    await chargeTask(ctx, caller, {
      taskId, platform: submission.platform, action: submission.action, model: submission.model, channelId: channel.id, quota,
      record: (trx, now) => submission.record(trx, row, answer, now),
    }, submission.ip, startedAt);
    return { taskId, accepted: answer };
  } finally {
    releaseHold(hold);
  }
}
