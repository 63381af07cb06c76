import type { AppContext } from '../../context.js';
import { RelayError, UpstreamError, publicErrorOf, relayErrors, upstreamLogFields } from '../errors.js';
import { admitChannel, admitMore, pickKey, queueDeadline, type Admission } from './admission.js';
import type { Lease } from './concurrency.js';
import type { RelayChannel } from './channel-index.js';
import { onUpstreamFailure } from './upstream-failure.js';
import type { RelayState } from '../state.js';
import type { CallSpan } from '../tracing/call-span.js';

/** One relayed call as the attempt loop sees it: where it may go, and what one attempt does. */
export interface AttemptPlan<T> {
  group: string;
  /**
   * Cross-group retry (an `auto` token with cross_group_retry): groups failover continues into, in
   * order, once every channel of the current group failed or its retries are used up.
   */
  nextGroups?: readonly string[];
  model: string;
  /** A channel the call must go to (the token's `sk-…-<id>`, a task follow-up): tried once. */
  pinnedChannelId: number | null;
  /** The refusal when the pinned channel is missing or disabled. */
  pinnedMissing?(id: number): RelayError;
  /** The client went away: stop waiting for a busy channel. */
  isCancelled(): boolean;
  /**
   * Whether a selected channel can serve this kind of call (the endpoint, Realtime's channel types);
   * one that cannot is skipped without using up a retry, with this failure when none can.
   */
  refusal(channel: RelayChannel): UpstreamError | null;
  /**
   * One call to an admitted channel with its key. An UpstreamError (the channel's answer or its
   * connection) counts against the channel and may go to the next; anything else ends the call as is.
   */
  attempt(channel: RelayChannel, key: string, tried: number[], slots: AttemptSlots): Promise<T>;
  /**
   * Gives a successful attempt's answer to the client inside the loop (a stream, a converted answer):
   * an UpstreamError it throws means nothing reached the client yet, so the next channel is tried.
   */
  deliver?(value: T): Promise<void> | void;
  /**
   * Keep the channel's slots (concurrency, key) after a successful attempt, for a call that goes on
   * after it returns (a Realtime session): the caller releases them. Otherwise they are freed at once.
   */
  keepsSlots?: boolean;
  /** The log line of the last failure when every channel failed. */
  failureMessage: string;
  /** Filled in as the loop goes, for the error log of a call that fails (ledger/error-log.ts). */
  trace?: AttemptTrace;
}

/** The channel's limits for an attempt that makes several upstream calls (a fan-out). */
export interface AttemptSlots {
  /**
   * Takes slots for `count` more calls on the attempt's channel and key, held until the attempt and
   * its delivery end; without room the attempt must throw ChannelBusy (the channel is skipped, not failed).
   */
  more(count: number): Promise<boolean>;
}

/** Thrown by an attempt whose channel has no room for its extra calls now: skipped like a channel at a limit. */
export class ChannelBusy extends Error {
  constructor() {
    super('the channel has no room for the extra calls of this request');
    this.name = 'ChannelBusy';
  }
}

/** What the attempt loop did for one call: the channels tried and the upstream failure it answered with. */
export interface AttemptTrace {
  /** Channel ids tried, in order (admin_info.use_channel). */
  tried: number[];
  /** The last channel tried (or refused), null when none was. */
  channel: RelayChannel | null;
  /** The upstream failure the caller's answer was made from (publicFailure), null when the call failed otherwise. */
  upstream: UpstreamError | null;
  /** The call's trace when tracing is on (relay/tracing/call-span.ts): a span per attempt. Null when off. */
  span: CallSpan | null;
}

export const newAttemptTrace = (): AttemptTrace => ({ tried: [], channel: null, upstream: null, span: null });

export interface AttemptResult<T> {
  value: T;
  channel: RelayChannel;
  /** The group whose channel served the call (a later one after a cross-group retry). */
  group: string;
  tried: number[];
  /** The channel's slots when `keepsSlots`, else already free. */
  slots: Admission | null;
}

/** Every channel for the model is at a concurrency or RPM limit (a client may retry shortly). */
function channelsBusy(): RelayError {
  const error = new RelayError(
    429,
    'channel_concurrency_exceeded',
    '当前模型的所有渠道均已达到并发或每分钟请求数上限，请稍后再试',
    false,
    'rate_limit_error',
  );
  error.retryAfterMs = 1000;
  return error;
}

/** Every channel for the model is cooling down after failures: 503 until the first comes back. */
function channelsCooling(until: number): RelayError {
  const error = new RelayError(503, 'channel_cooling_down', '当前模型的渠道连续失败，正在冷却，请稍后再试', false, 'upstream_error');
  error.retryAfterMs = Math.max(1000, until - Date.now());
  return error;
}

const channelNotFound = (id: number) => new RelayError(503, 'channel_not_found', `渠道 #${id} 不存在或已被禁用`);

/**
 * The last failure as the caller sees it: logged in full (keys redacted), answered classified and
 * redacted (errors.ts publicErrorOf), with the channel's status code mapping applied.
 */
function publicFailure(
  relay: RelayState,
  channel: RelayChannel | null,
  error: UpstreamError,
  message: string,
  trace: AttemptTrace | undefined,
): RelayError {
  relay.log.warn(upstreamLogFields(error, channel?.id), message);
  if (trace) {
    trace.upstream = error;
    trace.channel = channel;
  }
  const mapped = channel?.statusCodeMapping?.[String(error.upstreamStatus)];
  const status = mapped !== undefined ? Number(mapped) : NaN;
  return publicErrorOf(error, Number.isInteger(status) && status >= 100 && status <= 599 ? status : undefined);
}

/**
 * The one attempt loop of every relayed call: chat and the other endpoints, task submits and Realtime
 * sessions (docs/architecture.md, "One engine"). Select a channel for group and model (or the pinned
 * one), admit it (channel RPM, channel and key concurrency; a channel at a limit is skipped, and waited
 * for with ConcurrencyQueueEnabled), attempt, and on a failure the retry policy allows try up to
 * RetryTimes other channels, never one that already failed in this call. Cooling-down channels are
 * skipped by selection; when only they are left the caller gets 503 with Retry-After. With
 * `nextGroups` (cross-group retry) a group whose channels all failed hands over to the next one.
 */
export async function runAttempts<T>(ctx: AppContext, relay: RelayState, plan: AttemptPlan<T>): Promise<AttemptResult<T>> {
  const failed = new Set<number>();
  const tried: number[] = plan.trace ? plan.trace.tried : [];
  let shortestWait: number | null = null;
  const isPinned = plan.pinnedChannelId !== null;
  const attempts = isPinned ? 1 : 1 + Math.max(0, ctx.options.number('RetryTimes'));
  let lastError: UpstreamError | null = null;
  let lastChannel: RelayChannel | null = null;
  let group = plan.group;
  let nextGroup = 0;
  // Tracing off: null, and each attempt's cost is this one check.
  const spans = plan.trace ? plan.trace.span : null;
  // Cross-group retry: each group gets the full RetryTimes (new-api's), channels failed in one stay out in the next.
  groups: for (;;) {
    // Channels at a concurrency or RPM limit: skipped by selection, not failed; waited for in queue mode.
    let busy: Set<number> | null = null;
    let queueUntil = -1;
    let isRetryable = true;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      const channel = isPinned
        ? busy
          ? null
          : relay.channels.findById(plan.pinnedChannelId!)
        : relay.channels.select(group, plan.model, busy ? new Set([...failed, ...busy]) : failed);
      if (!channel) {
        if (lastError) break;
        if (busy) {
          // Every channel left is at a limit: wait for a slot (ConcurrencyQueueEnabled), else a 429.
          if (queueUntil < 0) queueUntil = queueDeadline(ctx);
          if (Date.now() < queueUntil && !plan.isCancelled()) {
            await relay.limiter.nextChance(Math.min(100, queueUntil - Date.now()));
            busy = null;
            attempt -= 1;
            continue;
          }
          throw channelsBusy();
        }
        if (isPinned) throw (plan.pinnedMissing ?? channelNotFound)(plan.pinnedChannelId!);
        const coolingEnd = relay.channels.cooldownEnd(group, plan.model);
        // A group whose channels are all cooling: the next group when there is one.
        if (plan.nextGroups && nextGroup < plan.nextGroups.length) break;
        if (coolingEnd !== null) throw channelsCooling(coolingEnd);
        throw relayErrors.noChannel(group, plan.model);
      }
      const refusal = plan.refusal(channel);
      // The pinned channel cannot serve this kind of call: the caller's choice, not the channel's failure.
      if (refusal && isPinned) throw publicFailure(relay, channel, refusal, plan.failureMessage, plan.trace);
      if (refusal) {
        // A channel that cannot serve this kind of call is skipped without using up a retry.
        failed.add(channel.id);
        lastError ??= refusal;
        lastChannel ??= channel;
        attempt -= 1;
        continue;
      }
      // The common channel (no limits) is admitted without a wait; a limited one may be busy.
      let admission: Admission | null = null;
      if (channel.limits !== null) {
        const admitted = admitChannel(ctx, relay, channel);
        admission = admitted instanceof Promise ? await admitted : admitted;
        if (!admission) {
          (busy ??= new Set()).add(channel.id);
          attempt -= 1;
          continue;
        }
      }
      const key = admission ? admission.key : pickKey(channel);
      tried.push(channel.id);
      if (plan.trace) plan.trace.channel = channel;
      let isKept = false;
      if (spans !== null) spans.startAttempt(channel, tried.length);
      // Slots of a fan-out's extra calls: freed with the attempt, after its delivery.
      let extra: Lease | null = null;
      const slots: AttemptSlots = {
        more: async (count) => {
          const taken = await admitMore(ctx, relay, channel, key, count);
          if (taken) extra = taken;
          return taken !== null;
        },
      };
      try {
        const value = await plan.attempt(channel, key, tried, slots);
        // A delivery that completes at once (a buffered answer) is not awaited: no extra turn per call.
        const delivered = plan.deliver?.(value);
        if (delivered) await delivered;
        if (spans !== null) spans.attemptSucceeded();
        relay.cooldown.onSuccess(channel.id);
        isKept = plan.keepsSlots === true;
        return { value, channel, group, tried, slots: isKept ? admission : null };
      } catch (error) {
        if (error instanceof ChannelBusy) {
          // Nothing was sent: the channel is at a limit for this call, as if admission had refused it.
          if (spans !== null) spans.attemptFailed(error, true);
          tried.pop();
          (busy ??= new Set()).add(channel.id);
          attempt -= 1;
          continue;
        }
        if (!(error instanceof UpstreamError)) {
          if (error instanceof RelayError && error.code === 'request_build_failed')
            relay.log.error({ err: error.cause, channelId: channel.id }, 'upstream request could not be built');
          if (spans !== null) spans.attemptFailed(error, false);
          throw error;
        }
        failed.add(channel.id);
        lastError = error;
        lastChannel = channel;
        if (error.retryAfterMs !== null)
          shortestWait = shortestWait === null ? error.retryAfterMs : Math.min(shortestWait, error.retryAfterMs);
        const isRetried = onUpstreamFailure(ctx, relay, channel, key, error);
        // The span learns whether another attempt follows when one starts (or the call ends).
        if (spans !== null) spans.attemptFailed(error, isRetried);
        if (!isRetried) {
          isRetryable = false;
          break;
        }
      } finally {
        if (!isKept) admission?.release();
        (extra as Lease | null)?.release();
      }
    }
    // Every channel of this group failed (or its retries are used up): the next group, when allowed.
    if (!isRetryable || !plan.nextGroups || nextGroup >= plan.nextGroups.length) break groups;
    group = plan.nextGroups[nextGroup++]!;
  }
  const answer = publicFailure(relay, lastChannel, lastError!, plan.failureMessage, plan.trace);
  // Every channel failed: the shortest wait any of them asked for.
  if (shortestWait !== null) answer.retryAfterMs = shortestWait;
  throw answer;
}
