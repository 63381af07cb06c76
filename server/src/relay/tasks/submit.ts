import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { findGroupRatio, findModelPricing } from '../billing/pricing.js';
import { computeQuota } from '../billing/quota.js';
import { RelayError, UpstreamError, publicErrorOf, relayErrors, upstreamLogFields } from '../errors.js';
import { checkModelAllowed, type RelayCaller } from '../pipeline/authenticate.js';
import { disableChannelIfBanned } from '../pipeline/auto-disable.js';
import type { RelayChannel } from '../pipeline/channel-index.js';
import { targetOf } from '../pipeline/dispatch.js';
import { reserve } from '../pipeline/relay-call.js';
import { releaseHold } from '../pipeline/settle.js';
import type { UpstreamTarget } from '../providers/types.js';
import type { RelayState } from '../state.js';
import { chargeTask } from './ledger.js';

/** One task to submit: a per-call model and how one channel accepts it (the upstream's task id). */
export interface TaskSubmission {
  platform: string;
  action: string;
  model: string;
  ip: string;
  properties: string;
  send(channel: RelayChannel, target: UpstreamTarget): Promise<string>;
}

/** The price of one task action: ModelPrice × group ratio; an unpriced action is refused. */
function priceOf(ctx: AppContext, caller: RelayCaller, model: string): number {
  const pricing = findModelPricing(ctx.options, model);
  const isFree = ctx.options.bool('SelfUseModeEnabled') || caller.user.acceptsUnsetModels;
  if ((!pricing.isKnown || pricing.quotaType !== 1) && !isFree) {
    throw new RelayError(400, 'model_price_error', `模型 ${model} 未设置按次价格，请联系管理员设置`);
  }
  const quota = computeQuota(pricing, findGroupRatio(ctx.options, caller.group), { promptTokens: 0, completionTokens: 0, cachedTokens: 0 }, ctx.options.number('QuotaPerUnit'), 1);
  return pricing.quotaType === 1 ? quota : 0;
}

/**
 * Submits a task with failover (as chat: group, model, priority, weight; RetryTimes other channels
 * on a retryable failure) under a hold of its price, then records it and takes the price durably
 * (ledger.ts). Returns the gateway's task id. Nothing is billed when no channel accepts it.
 */
export async function submitTask(ctx: AppContext, relay: RelayState, caller: RelayCaller, submission: TaskSubmission): Promise<string> {
  const startedAt = Date.now();
  checkModelAllowed(caller, submission.model);
  const quota = priceOf(ctx, caller, submission.model);
  const hold = reserve(caller, quota);
  try {
    const failed = new Set<number>();
    const attempts = caller.pinnedChannelId !== null ? 1 : 1 + Math.max(0, ctx.options.number('RetryTimes'));
    let accepted: { channel: RelayChannel; upstreamId: string } | null = null;
    let lastError: UpstreamError | null = null;
    let lastChannel: RelayChannel | null = null;
    for (let attempt = 0; attempt < attempts && !accepted; attempt += 1) {
      const channel = caller.pinnedChannelId !== null ? relay.channels.findById(caller.pinnedChannelId) : relay.channels.select(caller.group, submission.model, failed);
      if (!channel) break;
      try {
        accepted = { channel, upstreamId: await submission.send(channel, targetOf(channel, relay.dispatcher)) };
      } catch (error) {
        const failure = error instanceof UpstreamError ? error : new UpstreamError(0, `上游连接失败：${(error as Error).message}`, null, '');
        failed.add(channel.id);
        lastError = failure;
        lastChannel = channel;
        disableChannelIfBanned(ctx, relay, channel, failure);
        if (!failure.retryable) break;
      }
    }
    if (!accepted) {
      if (!lastError) throw relayErrors.noChannel(caller.group, submission.model);
      relay.log.warn(upstreamLogFields(lastError, lastChannel?.id), 'task submit failed');
      throw publicErrorOf(lastError);
    }
    // Accepted upstream: recorded and billed in one transaction (never retried on another channel).
    const taskId = `task_${randomUUID().replace(/-/g, '')}`;
    await chargeTask(ctx, caller, {
      taskId, upstreamId: accepted.upstreamId, platform: submission.platform, action: submission.action, model: submission.model,
      channelId: accepted.channel.id, quota, properties: submission.properties,
    }, submission.ip, startedAt);
    return taskId;
  } finally {
    releaseHold(hold);
  }
}
