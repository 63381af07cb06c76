import type { AppContext } from '../../context.js';
import { RelayError } from '../errors.js';
import type { RelayState } from '../state.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { ChannelLimits, RelayChannel } from './channel-index.js';
import { freeLease, type Lease } from './concurrency.js';
import { keyFingerprint } from './key-health.js';

/** A channel admitted for one upstream call: the key to use and the slots to give back after it. */
export interface Admission {
  key: string;
  release(): void;
}

/** Where each polling channel's rotation stands (per instance). */
const turns = new Map<number, number>();

/** The channel's keys in the order to try them: from the next in turn (polling) or a random one. */
function keysInOrder(channel: RelayChannel): string[] {
  const { keys } = channel;
  if (keys.length <= 1) return keys;
  let start: number;
  if (channel.keyMode === 'polling') {
    start = (turns.get(channel.id) ?? 0) % keys.length;
    turns.set(channel.id, start + 1);
  } else {
    start = Math.floor(Math.random() * keys.length);
  }
  return start === 0 ? keys : [...keys.slice(start), ...keys.slice(0, start)];
}

/** The key for a channel without limits: the only one, the next in turn or one at random; no await. */
export function pickKey(channel: RelayChannel): string {
  return channel.keys.length <= 1 ? (channel.keys[0] ?? '') : keysInOrder(channel)[0]!;
}

/**
 * Admits one upstream call to a channel with limits (channel `setting`): a requests-per-minute slot
 * (rpm_limit), a channel slot (max_concurrency) and a slot of one of its keys (key_max_concurrency),
 * all shared by every instance through the cache. Null when the channel is at a limit: selection
 * skips it (not a failure). Slots taken before a refusal are given back. On one instance without an
 * RPM limit it answers at once, without a promise.
 */
export function admitChannel(ctx: AppContext, relay: RelayState, channel: RelayChannel): Admission | null | Promise<Admission | null> {
  const limits = channel.limits;
  const keys = keysInOrder(channel);
  if (!limits) return { key: keys[0] ?? '', release: freeLease.release };
  if (limits.rpm > 0) return admitWithRpm(ctx, relay, channel, keys, limits);
  return admitSlots(relay, channel, keys, limits);
}

async function admitWithRpm(
  ctx: AppContext,
  relay: RelayState,
  channel: RelayChannel,
  keys: string[],
  limits: ChannelLimits,
): Promise<Admission | null> {
  const rpmKey = `rpm:channel:${channel.id}`;
  if (!(await ctx.cache.take(rpmKey, limits.rpm, 60).catch(() => true))) return null;
  const admission = await admitSlots(relay, channel, keys, limits);
  if (!admission) void ctx.cache.giveBack(rpmKey).catch(() => undefined);
  return admission;
}

function admitSlots(
  relay: RelayState,
  channel: RelayChannel,
  keys: string[],
  limits: ChannelLimits,
): Admission | null | Promise<Admission | null> {
  if (limits.maxConcurrency <= 0) return admitKey(relay, channel, keys, limits, freeLease);
  const lease = relay.limiter.tryAcquire(`channel:${channel.id}`, limits.maxConcurrency);
  if (lease instanceof Promise) return lease.then((taken) => (taken ? admitKey(relay, channel, keys, limits, taken) : null));
  return lease ? admitKey(relay, channel, keys, limits, lease) : null;
}

/** A key with a free slot (key_max_concurrency), tried in the channel's order; the channel slot is given back when none is. */
function admitKey(
  relay: RelayState,
  channel: RelayChannel,
  keys: string[],
  limits: ChannelLimits,
  channelLease: Lease,
): Admission | null | Promise<Admission | null> {
  if (limits.keyMaxConcurrency <= 0) return { key: keys[0] ?? '', release: channelLease.release };
  const tryFrom = (index: number): Admission | null | Promise<Admission | null> => {
    for (let at = index; at < keys.length; at += 1) {
      const key = keys[at]!;
      const lease = relay.limiter.tryAcquire(`key:${channel.id}:${keyFingerprint(key)}`, limits.keyMaxConcurrency);
      const admit = (keyLease: Lease): Admission => ({
        key,
        release: () => {
          keyLease.release();
          channelLease.release();
        },
      });
      if (lease instanceof Promise) return lease.then((taken) => (taken ? admit(taken) : tryFrom(at + 1)));
      if (lease) return admit(lease);
    }
    channelLease.release();
    return null;
  };
  return tryFrom(0);
}

/**
 * Slots for the extra upstream calls of one attempt (a fan-out: `n` answers from an upstream that makes
 * one per call): `count` more of each limit the channel has (RPM, channel and key concurrency, on the
 * admitted key), so n calls count as n. Null when the channel has no room for them now: what was taken
 * is given back. The slots are freed by the lease; RPM counts stay used, as the first call's do.
 */
export async function admitMore(
  ctx: AppContext,
  relay: RelayState,
  channel: RelayChannel,
  key: string,
  count: number,
): Promise<Lease | null> {
  const limits = channel.limits;
  if (!limits || count <= 0) return freeLease;
  const leases: Lease[] = [];
  let rpmTaken = 0;
  const rpmKey = `rpm:channel:${channel.id}`;
  const free = () => {
    for (const lease of leases) lease.release();
  };
  const refuse = (): null => {
    free();
    for (let i = 0; i < rpmTaken; i += 1) void ctx.cache.giveBack(rpmKey).catch(() => undefined);
    return null;
  };
  for (let i = 0; i < count; i += 1) {
    if (limits.rpm > 0) {
      if (!(await ctx.cache.take(rpmKey, limits.rpm, 60).catch(() => true))) return refuse();
      rpmTaken += 1;
    }
    if (limits.maxConcurrency > 0) {
      const lease = await relay.limiter.tryAcquire(`channel:${channel.id}`, limits.maxConcurrency);
      if (!lease) return refuse();
      leases.push(lease);
    }
    if (limits.keyMaxConcurrency > 0) {
      const lease = await relay.limiter.tryAcquire(`key:${channel.id}:${keyFingerprint(key)}`, limits.keyMaxConcurrency);
      if (!lease) return refuse();
      leases.push(lease);
    }
  }
  return { release: free };
}

/** How long a request may wait for a slot: 0 unless ConcurrencyQueueEnabled. */
export function queueDeadline(ctx: AppContext): number {
  return ctx.options.bool('ConcurrencyQueueEnabled') ? Date.now() + ctx.options.number('ConcurrencyQueueTimeoutSeconds') * 1000 : 0;
}

/**
 * The token's slot when it has a concurrency limit (tokens.max_concurrency), across instances:
 * over the limit a 429, or with ConcurrencyQueueEnabled a wait in a bounded queue
 * (ConcurrencyQueueSize per token and instance) of at most ConcurrencyQueueTimeoutSeconds.
 */
export function admitToken(ctx: AppContext, relay: RelayState, caller: RelayCaller, isGone: () => boolean): Lease | Promise<Lease> {
  const limit = caller.token?.maxConcurrency ?? 0;
  if (limit <= 0) return freeLease;
  const key = `token:${caller.token!.id}`;
  // The queue settings are read only when the token is at its limit.
  const waitOrRefuse = (): Promise<Lease> => {
    const deadline = queueDeadline(ctx);
    if (deadline <= 0) refuseToken(limit);
    const waiting = relay.limiter.acquire(key, limit, {
      deadline,
      maxQueued: ctx.options.number('ConcurrencyQueueSize'),
      isCancelled: isGone,
    });
    return waiting.then((taken) => taken ?? refuseToken(limit));
  };
  const lease = relay.limiter.tryAcquire(key, limit);
  if (lease instanceof Promise) return lease.then((taken) => taken ?? waitOrRefuse());
  return lease ?? waitOrRefuse();
}

function refuseToken(limit: number): never {
  const refusal = new RelayError(
    429,
    'token_concurrency_exceeded',
    `令牌并发请求数已达上限（${limit}），请稍后再试`,
    false,
    'rate_limit_error',
  );
  refusal.retryAfterMs = 1000;
  throw refusal;
}
