import { setTimeout as delay } from 'node:timers/promises';
import type { AppContext } from '../../context.js';
import type { ModelPricing } from '../billing/pricing.js';
import { findGroupRatioInfo } from '../billing/pricing.js';
import type { Usage } from '../billing/quota.js';
import { clampQuota } from '../billing/usage-count.js';
import { holdOf, reserve } from '../ledger/hold.js';
import { settle } from '../ledger/settle.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { RelayExchange } from '../pipeline/exchange.js';
import type { RelayJob } from '../pipeline/relay-job.js';
import type { RelayState } from '../state.js';
import type { StoredAnswer } from './answer-store.js';
import { AnswerTap } from './answer-tap.js';
import { replayAnswer } from './replay-answer.js';
import { cacheRequestOf, type CacheRequest } from './request-key.js';

/** The header that tells a caller the cache answered (`hit`), did not (`miss`) or was not asked (`bypass`). */
export const cacheHeader = 'X-ModelGate-Cache';

/** A Redis slower than this is a miss: the cache never makes a call wait on it for long. */
const lookupTimeoutMs = 500;

/** A miss being recorded: the answer's bytes are copied as they go out, kept once the call is billed. */
export interface AnswerRecording {
  request: CacheRequest;
  tap: AnswerTap;
}

/** What the cache found for a call: an answer to give (a hit: serveCachedAnswer), or a recording to make (a miss), or neither. */
export interface CacheLookup {
  hit: StoredAnswer | null;
  recording: AnswerRecording | null;
}

/** A kept answer, or null; Redis gets `lookupTimeoutMs` to answer (the memory store answers at once). */
function findAnswer(relay: RelayState, key: string): Promise<StoredAnswer | null> {
  const found = relay.answers.get(key);
  if (relay.answers.kind === 'memory') return found;
  const timer = new AbortController();
  const timeout = delay(lookupTimeoutMs, null, { ref: false, signal: timer.signal }).catch(() => null);
  return Promise.race([found, timeout]).finally(() => timer.abort());
}

/**
 * Looks a call up, for a caller the cache is on for (`ttlSeconds` > 0: settings.ts). Says which in
 * the cache header; on a miss starts copying what the client is sent.
 */
export async function lookUpAnswer(
  ctx: AppContext,
  relay: RelayState,
  exchange: RelayExchange,
  caller: RelayCaller,
  job: RelayJob,
  ttlSeconds: number,
): Promise<CacheLookup> {
  const decision = cacheRequestOf(ctx.options, exchange, caller, job, ttlSeconds);
  if ('bypass' in decision) {
    exchange.raw.setHeader(cacheHeader, 'bypass');
    return { hit: null, recording: null };
  }
  const hit = decision.isRefresh ? null : await findAnswer(relay, decision.key);
  // Only whole 200 answers are kept (keepAnswer); the check guards against any other entry under the key.
  if (hit !== null && hit.status === 200) return { hit, recording: null };
  exchange.raw.setHeader(cacheHeader, 'miss');
  return {
    hit: null,
    recording: { request: decision, tap: new AnswerTap(exchange.raw, ctx.options.number('response_cache.max_entry_bytes')) },
  };
}

export interface CachedCall {
  exchange: RelayExchange;
  caller: RelayCaller;
  job: RelayJob;
  pricing: ModelPricing;
  answer: StoredAnswer;
  startedAt: number;
}

/**
 * Answers a hit: no hold on a likely cost, no channel, no upstream call. The bill is known up front —
 * `response_cache.hit_ratio` of what the original call was billed — and is reserved (a caller who
 * cannot pay it is refused as for any call), settled through the one settle path with the log row
 * marked `cache_hit`, then the answer is replayed (a client that leaves during the replay has been
 * billed). The wallet pays a hit (no subscription share).
 */
export async function serveCachedAnswer(ctx: AppContext, relay: RelayState, call: CachedCall): Promise<number> {
  const { caller, job, exchange, answer } = call;
  const ratio = ctx.options.number('response_cache.hit_ratio');
  const quota = clampQuota(answer.quota * ratio);
  // A free hit (the default ratio) needs nothing of the balance: a caller paid by a subscription
  // allowance, its wallet empty, still gets it. A paid one is reserved from the wallet.
  const hold = quota > 0 ? reserve(caller, quota) : holdOf(caller, 0);
  // Said once the call is admitted: a refused call (403 above) was not answered from the cache.
  exchange.raw.setHeader(cacheHeader, 'hit');
  const ratios = findGroupRatioInfo(ctx.options, caller.user.group, caller.group);
  const settled = settle(ctx, relay, {
    hold,
    pricing: call.pricing,
    groupRatio: ratios.groupRatio,
    userGroupRatio: ratios.userGroupRatio,
    group: caller.group,
    usage: { ...answer.usage },
    calls: job.calls,
    model: job.model,
    upstreamModel: job.model,
    channelId: 0,
    tried: [],
    isStream: job.isStream,
    startedAt: call.startedAt,
    frtMs: Date.now() - call.startedAt,
    ip: exchange.ip,
    requestPath: exchange.path,
    cacheHit: { quota, ratio, originalQuota: answer.quota },
  });
  const billed = settled instanceof Promise ? await settled : settled;
  await replayAnswer(exchange, answer);
  // In the metrics as a call without a channel (channel "none").
  if (ctx.metrics.isEnabled) {
    const model = call.pricing.isKnown ? job.model : 'other';
    ctx.metrics.observe({
      route: exchange.path,
      model,
      channelId: null,
      status: 200,
      durationMs: Date.now() - call.startedAt,
      promptTokens: answer.usage.promptTokens,
      completionTokens: answer.usage.completionTokens,
      quota: billed,
    });
  }
  return billed;
}

/**
 * Keeps a missed call's answer once it has gone out whole: HTTP 200, the stream ended normally
 * (`isComplete`), its output not lowered by the gateway for a low balance (that answer is not the one
 * the request asked for). Stored in the background; a store that fails only loses the entry.
 */
export function keepAnswer(
  relay: RelayState,
  recording: AnswerRecording,
  billed: { usage: Usage; quota: number; isStream: boolean; isComplete: boolean },
): void {
  if (!billed.isComplete) return;
  const { tap, request } = recording;
  const out = tap.out;
  void tap
    .whenComplete()
    .then((isComplete) => {
      if (!isComplete || out.statusCode !== 200 || tap.chunks.length === 0) return;
      const answer: StoredAnswer = {
        status: 200,
        contentType: String(out.getHeader('content-type') ?? ''),
        isStream: billed.isStream,
        chunks: tap.chunks,
        usage: billed.usage,
        quota: billed.quota,
      };
      return relay.answers.set(request.key, answer, request.ttlSeconds);
    })
    .catch((error: unknown) => relay.log.warn({ err: error }, 'response cache entry not kept'));
}
