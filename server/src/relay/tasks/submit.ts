import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../../context.js';
import { crossRetryGroups, resolveAutoGroup } from '../routing/auto-group.js';
import { RelayError, UpstreamError, relayErrors } from '../errors.js';
import { checkModelAllowed, type RelayCaller } from '../pipeline/authenticate.js';
import { checkModelRateLimit, releaseSuccessSlot } from '../pipeline/rate-limit.js';
import { checkPrompt, sensitiveGuard } from '../sensitive/guard.js';
import type { RelayChannel } from '../routing/channel-index.js';
import { targetOf } from '../upstream/dispatch.js';
import { admitToken } from '../routing/admission.js';
import { freeLease, type Lease } from '../routing/concurrency.js';
import { newAttemptTrace, runAttempts, type AttemptTrace } from '../routing/attempt-loop.js';
import { recordFailedCall } from '../ledger/error-log.js';
import { releaseHold, type Hold } from '../ledger/hold.js';
import { splitFunded } from '../ledger/funding-settle.js';
import { TaskRefusal, taskExchangeMs } from '../providers/shared/task-json.js';
import type { UpstreamTarget } from '../providers/types.js';
import type { RelayState } from '../state.js';
import { chargeTask, subscriptionPartsText, type NewTask } from '../ledger/task-ledger.js';
import { CallSpan } from '../tracing/call-span.js';
import { holdPrice, priceOf } from './task-price.js';
import { modelLabel, observeFailed } from '../pipeline/call-metrics.js';

/** One task to submit: a per-call model, how one channel accepts it, and how its row is written. */
export interface TaskSubmission<Accepted> {
  platform: string;
  action: string;
  model: string;
  ip: string;
  /** The request path without its query (the error log's request_path). */
  requestPath?: string;
  /** The client's headers: with tracing on, a valid traceparent makes the submit's request span its child. */
  headers?: IncomingHttpHeaders;
  /** A follow-up action goes to the channel of the task it acts on, and nowhere else. */
  channelId?: number;
  /** The gateway's id for a new task. */
  newTaskId(): string;
  /** Priced units: the model's price is per unit (a video's seconds); 1 when absent. */
  units?: number;
  /** The text the task is made from: checked against the sensitive words as a chat prompt is. */
  prompt?: string;
  /** A channel that cannot take this task (not a Midjourney channel): skipped, not failed. */
  refusal?(channel: RelayChannel): UpstreamError | null;
  /** The client went away (a queued submit stops waiting). */
  isGone?(): boolean;
  /**
   * Submits to one channel; throws an UpstreamError when the channel refuses. `signal` ends the
   * exchange at the submit's deadline (RELAY_TIMEOUT, else taskExchangeMs), its answer included.
   */
  send(channel: RelayChannel, target: UpstreamTarget, signal: AbortSignal): Promise<Accepted>;
  /**
   * The caller's task the accepted answer names when the upstream says it already has it (Midjourney's
   * code 21 with an id the gateway recorded): answered with that task, not recorded or billed again.
   */
  existingTask?(channel: RelayChannel, accepted: Accepted): Promise<string | null>;
  /** Writes the task row (in the billing transaction). */
  record(trx: Parameters<NewTask['record']>[0], row: AcceptedTask, accepted: Accepted, now: number): Promise<void>;
}

/** A submit a channel accepted: the task, and what it was charged (0 when it named a task already recorded). */
interface Submitted<Accepted> {
  taskId: string;
  accepted: Accepted;
  channelId: number;
  quota: number;
}

/** Who and what a task row records, once a channel accepted it. */
export interface AcceptedTask {
  taskId: string;
  userId: number;
  tokenId: number;
  channelId: number;
  quota: number;
  /** What subscription allowances paid of `quota`, for the row's `subscription_parts` ('' for none). */
  subscriptionParts: string;
}

/** The gateway could not build a task's request: logged with its cause by the attempt loop, counted against no channel. */
function taskBuildFailed(channel: RelayChannel, cause: unknown): RelayError {
  const error = new RelayError(400, 'request_build_failed', `请求无法转换为渠道 #${channel.id} 的上游格式`);
  error.cause = cause;
  return error;
}

/**
 * Submits a task with failover (as chat: group, model, priority, weight; RetryTimes other channels
 * on a retryable failure) under a hold of its price, then records it and takes the price durably
 * (ledger/task-ledger.ts). Returns the gateway's task id. Nothing is billed when no channel accepts it.
 */
export async function submitTask<Accepted>(
  ctx: AppContext,
  relay: RelayState,
  requester: RelayCaller,
  submission: TaskSubmission<Accepted>,
): Promise<Submitted<Accepted>> {
  const startedAt = Date.now();
  const trace = newAttemptTrace();
  if (ctx.tracing !== null) {
    trace.span = new CallSpan(ctx.tracing, {
      operation: `${submission.platform}.${submission.action}`,
      model: submission.model,
      path: submission.requestPath ?? '',
      isStream: false,
      userId: requester.user.id,
      tokenId: requester.token?.id ?? null,
      group: requester.group,
      headers: submission.headers,
    });
  }
  // Counted as a relay call is: a shutdown that cut the client's connection still waits for the charge.
  ctx.lifecycle.callStarted();
  try {
    const submitted = await submitWithFailover(ctx, relay, requester, submission, startedAt, trace);
    trace.span?.end();
    if (ctx.metrics.isEnabled)
      ctx.metrics.observe({
        route: submission.requestPath ?? '',
        model: modelLabel(ctx, submission.model),
        channelId: submitted.channelId,
        status: 200,
        durationMs: Date.now() - startedAt,
        quota: submitted.quota,
      });
    return submitted;
  } catch (error) {
    trace.span?.end(error);
    // The error log (type 5, ErrorLogEnabled); a refusal the platform answered (TaskRefusal) is answered 400.
    const failure =
      error instanceof TaskRefusal
        ? new RelayError(400, 'task_refused', error.message || '上游拒绝了请求', false, 'upstream_error')
        : error;
    recordFailedCall(ctx, relay, {
      caller: requester,
      model: submission.model,
      error: failure,
      trace,
      isStream: false,
      startedAt,
      requestPath: submission.requestPath ?? '',
    });
    if (ctx.metrics.isEnabled) observeFailed(ctx, submission.requestPath ?? '', submission.model, failure, startedAt);
    throw error;
  } finally {
    ctx.lifecycle.callEnded();
  }
}

async function submitWithFailover<Accepted>(
  ctx: AppContext,
  relay: RelayState,
  requester: RelayCaller,
  submission: TaskSubmission<Accepted>,
  startedAt: number,
  trace: AttemptTrace,
): Promise<Submitted<Accepted>> {
  checkModelAllowed(requester, submission.model);
  // A model no enabled channel serves is unknown here, priced or not (a follow-up goes to its task's channel).
  const isRouted = submission.channelId !== undefined || requester.pinnedChannelId !== null;
  // An `auto` token: the first of its auto groups with a channel for the model (a follow-up keeps its channel).
  const caller = isRouted ? requester : resolveAutoGroup(relay, requester, submission.model);
  if (!isRouted && !relay.channels.hasModel(caller.group, submission.model)) throw relayErrors.noChannel(caller.group, submission.model);
  const { quota: held, start } = priceOf(ctx, caller, submission.model, submission.units);
  // The prompt against the sensitive words, and the user's model request limit, as for chat (relay-call.ts).
  if (submission.prompt) checkPrompt(sensitiveGuard(ctx.options), () => submission.prompt!);
  const limited = checkModelRateLimit(ctx, caller.user.id);
  const successSlot = limited === null ? null : await limited;
  let isCharged = false;
  try {
    const planned = holdPrice(ctx, relay, caller, held, start, submission.isGone ?? (() => false));
    const hold = planned instanceof Promise ? await planned : planned;
    const charged = await submitHeld(ctx, relay, caller, submission, { hold, held, isRouted, startedAt, trace });
    isCharged = charged.isCharged;
    return charged;
  } finally {
    // The success slot is kept when the task is charged, given back otherwise.
    if (!isCharged) releaseSuccessSlot(ctx, successSlot);
  }
}

/** The submit under its hold: the attempt loop, then the charge of an accepted task. */
async function submitHeld<Accepted>(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  submission: TaskSubmission<Accepted>,
  { hold, held, isRouted, startedAt, trace }: { hold: Hold; held: number; isRouted: boolean; startedAt: number; trace: AttemptTrace },
): Promise<Submitted<Accepted> & { isCharged: boolean }> {
  const submitDeadlineMs = ctx.config.relayTimeoutSeconds > 0 ? ctx.config.relayTimeoutSeconds * 1000 : taskExchangeMs;
  // The token's concurrency slot, as for chat: held while the submit is in flight.
  let tokenLease: Lease = freeLease;
  try {
    if (caller.token !== null && caller.token.maxConcurrency > 0) {
      const admitted = admitToken(ctx, relay, caller, submission.isGone ?? (() => false));
      tokenLease = admitted instanceof Promise ? await admitted : admitted;
    }
    const pinned = submission.channelId ?? caller.pinnedChannelId;
    // The one attempt loop: the same channel limits (RPM, concurrency, key slots), retry policy and cooldown as chat.
    const {
      value: answer,
      channel,
      group,
    } = await runAttempts(ctx, relay, {
      group: caller.group,
      // Cross-group retry, as chat: an `auto` token with the flag goes on into its next auto groups.
      nextGroups: isRouted ? undefined : crossRetryGroups(relay, caller, submission.model),
      model: submission.model,
      pinnedChannelId: pinned,
      pinnedMissing: (id) =>
        submission.channelId !== undefined
          ? new RelayError(503, 'channel_unavailable', `原任务的渠道 #${id} 已不可用`)
          : new RelayError(503, 'channel_not_found', `渠道 #${id} 不存在或已被禁用`),
      isCancelled: submission.isGone ?? (() => false),
      refusal: (channel) => submission.refusal?.(channel) ?? null,
      attempt: async (channel, key) => {
        try {
          const target = targetOf(channel, relay.dispatcher, undefined, key);
          // Tracing on: the attempt span's traceparent goes with the submit (adapters send target.headers).
          if (trace.span !== null) trace.span.sending(target.headers, channel.baseURL, submission.model);
          return await submission.send(channel, target, AbortSignal.timeout(submitDeadlineMs));
        } catch (error) {
          // Only the upstream's own answer or connection counts against a channel (task-json.ts says which is which).
          if (error instanceof TaskRefusal || error instanceof UpstreamError || error instanceof RelayError) throw error;
          throw taskBuildFailed(channel, error);
        }
      },
      failureMessage: 'task submit failed',
      trace,
    });
    // Accepted upstream: recorded and billed in one transaction (never retried on another channel).
    const existing = await submission.existingTask?.(channel, answer);
    if (existing) return { taskId: existing, accepted: answer, channelId: channel.id, quota: 0, isCharged: false };
    // Served by a later auto group: billed at that group's ratio, as chat is.
    const payer = group === caller.group ? caller : { ...caller, group };
    const quota = payer === caller ? held : priceOf(ctx, payer, submission.model, submission.units).quota;
    const taskId = submission.newTaskId();
    // A subscription's share of the price becomes the bill's (funding-settle.ts); the task row keeps its parts for a refund.
    const funding = hold.funding === null ? null : await splitFunded(relay, hold, quota);
    const row: AcceptedTask = {
      taskId,
      userId: caller.user.id,
      tokenId: caller.token?.id ?? 0,
      channelId: channel.id,
      quota,
      subscriptionParts: subscriptionPartsText(funding),
    };
    await chargeTask(
      ctx,
      relay,
      payer,
      {
        taskId,
        platform: submission.platform,
        action: submission.action,
        model: submission.model,
        channelId: channel.id,
        quota,
        funding,
        record: (trx, now) => submission.record(trx, row, answer, now),
      },
      submission.ip,
      startedAt,
    );
    trace.span?.settled({
      upstreamModel: submission.model,
      channelId: channel.id,
      group,
      usage: null,
      quota,
      firstChunkAt: null,
      startedAt,
    });
    return { taskId, accepted: answer, channelId: channel.id, quota, isCharged: true };
  } finally {
    tokenLease.release();
    releaseHold(hold);
  }
}
