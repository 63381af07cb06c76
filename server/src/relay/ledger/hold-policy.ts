import type { AppContext } from '../../context.js';
import { outputAllowance } from '../billing/output-allowance.js';
import type { ModelPricing } from '../billing/pricing.js';
import { estimateHold } from '../billing/quota.js';
import { RelayError } from '../errors.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { Lease } from '../routing/concurrency.js';
import type { RelayState } from '../state.js';
import { holdOf, spendable, type Hold } from './hold.js';

/** What a call may cost, as the hold policy needs it. */
export interface HoldRequest {
  pricing: ModelPricing;
  groupRatio: number;
  model: string;
  /** Upper estimate of the prompt (token-count.ts). */
  promptTokens: number;
  /** The caller's max_tokens, 0 when it set none. */
  maxTokens: number;
  /** Chat and completions: an answer of generated text, whose length the hold must foresee. */
  producesText: boolean;
  /** Calls billed for per-call models (images: n). */
  calls: number;
  /** Answers asked for (chat `n`): the hold covers each, prompt and output (a fan-out sends the prompt n times). */
  answers?: number;
  /** Quota of the call a subscription's allowance already holds (funding-hold.ts): the wallet holds the rest. */
  covered?: number;
}

/** The hold taken, and the output limit to send the upstream when the balance cannot pay for the request's maximum. */
export interface PlannedHold {
  hold: Hold;
  outputCap: number | null;
}

/** What the policy computed for one request: its likely and its worst cost (less what a subscription covers). */
export interface Costs {
  likely: number;
  worst: number;
  maxOutput: number;
}

/** The most requests of one user (or token) this instance lets wait for the low-balance slot. */
const maxQueuedPerCaller = 10_000;

/**
 * The hold of one relayed call (docs/billing.md, "Hold, settle, refund"). A request costs at worst
 * its prompt plus its maximum output (max_tokens, else the model's default output), and likely its
 * prompt plus the model's likely output (output-estimate.ts; `HoldOutputTokens` before its first
 * answer), or max_tokens when smaller.
 * - A caller whose spendable quota (user, and a limited token) is at least `LowBalanceQuota` and at
 *   least this request's worst cost holds the likely cost: calls run side by side and are refused
 *   only when the balance cannot pay even the likely cost.
 * - Otherwise the balance is low for this request: its calls run one at a time per user (and per
 *   limited token), across instances, queued up to `LowBalanceQueueSeconds`; each holds its worst
 *   cost or, when the balance is below it, the whole balance, and the upstream is sent the output
 *   limit that balance pays for (`outputCap`). Billing stays exact; what the upstream reports is
 *   billed, also beyond the hold.
 * Synchronous for the common case; a promise only when the call waits for the low-balance slot.
 */
export function planHold(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  request: HoldRequest,
  isGone: () => boolean,
): PlannedHold | Promise<PlannedHold> {
  const { options } = ctx;
  const costs = costsOf(
    request,
    relay.outputs.likely(request.model, options.number('HoldOutputTokens')),
    options.number('PreConsumedQuota'),
    options.number('QuotaPerUnit'),
  );
  const left = spendable(caller);
  const room = Math.min(left.user, left.token);
  if (isShort(left, room, costs, request)) throw tooLow(caller, left, costs.likely, options.number('QuotaPerUnit'));
  const floor = Math.max(costs.worst, options.number('LowBalanceQuota'));
  const isUserLow = left.user < floor;
  const isTokenLow = left.token < floor;
  if (!isUserLow && !isTokenLow) return { hold: holdOf(caller, costs.likely), outputCap: null };
  return lowBalanceHold(ctx, relay, caller, request, costs, { user: isUserLow, token: isTokenLow }, isGone);
}

/** A wallet that cannot hold the likely cost (or is at 0 for a call no subscription covers). */
function isShort(left: { user: number }, room: number, costs: Costs, request: HoldRequest): boolean {
  return (left.user <= 0 && (costs.likely > 0 || !request.covered)) || room < costs.likely;
}

const answersOf = (request: HoldRequest): number => Math.max(1, request.answers ?? 1);

/** The likely and worst cost of a request, less the quota a subscription covers (`request.covered`). */
export function costsOf(request: HoldRequest, likelyOutputTokens: number, preConsumedTokens: number, quotaPerUnit: number): Costs {
  const { pricing, groupRatio, promptTokens, maxTokens } = request;
  const covered = request.covered ?? 0;
  const maxOutput = maxTokens > 0 ? maxTokens : request.producesText ? outputAllowance(request.model) : 0;
  const answers = answersOf(request);
  const worst = answers * estimateHold(pricing, groupRatio, promptTokens, maxOutput, preConsumedTokens, quotaPerUnit, request.calls);
  if (!request.producesText || pricing.quotaType === 1 || likelyOutputTokens >= maxOutput)
    return { likely: Math.max(0, worst - covered), worst: Math.max(0, worst - covered), maxOutput };
  const likely =
    answers *
    estimateHold(pricing, groupRatio, promptTokens, Math.max(1, likelyOutputTokens), preConsumedTokens, quotaPerUnit, request.calls);
  return { likely: Math.max(0, likely - covered), worst: Math.max(0, worst - covered), maxOutput };
}

/** The costs of a request for the hold policy, read from the options and the likely outputs. */
export function requestCosts(ctx: AppContext, relay: RelayState, request: HoldRequest): Costs {
  const { options } = ctx;
  return costsOf(
    request,
    relay.outputs.likely(request.model, options.number('HoldOutputTokens')),
    options.number('PreConsumedQuota'),
    options.number('QuotaPerUnit'),
  );
}

async function lowBalanceHold(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  request: HoldRequest,
  costs: Costs,
  low: { user: boolean; token: boolean },
  isGone: () => boolean,
): Promise<PlannedHold> {
  const { options } = ctx;
  const lane = await takeTurn(ctx, relay, caller, low, isGone);
  try {
    // The balance as it is now that the calls before this one have settled.
    const left = spendable(caller);
    const room = Math.min(left.user, left.token);
    const quotaPerUnit = options.number('QuotaPerUnit');
    if (isShort(left, room, costs, request)) throw tooLow(caller, left, costs.likely, quotaPerUnit);
    if (room >= costs.worst) return { hold: holdOf(caller, costs.worst, lane), outputCap: null };
    const covered = request.covered ?? 0;
    const outputCap = affordableOutput(request, room + covered, costs.maxOutput, quotaPerUnit);
    const amount =
      answersOf(request) *
        estimateHold(request.pricing, request.groupRatio, request.promptTokens, outputCap, 0, quotaPerUnit, request.calls) -
      covered;
    return { hold: holdOf(caller, Math.max(0, Math.min(amount, room)), lane), outputCap };
  } catch (error) {
    lane.release();
    throw error;
  }
}

/**
 * The low-balance turn of a call whose cost grows while it runs (a Realtime session): below
 * `LowBalanceQuota` (the wallet, or a limited token) it waits for the one-at-a-time slot a chat call
 * of a low balance takes, and keeps it for its whole length, so parallel sessions cannot each
 * overdraw by a response. Null, without a wait, when the balance is not low.
 */
export function lowBalanceTurn(ctx: AppContext, relay: RelayState, caller: RelayCaller, isGone: () => boolean): Promise<Lease> | null {
  const floor = ctx.options.number('LowBalanceQuota');
  const left = spendable(caller);
  const low = { user: left.user < floor, token: left.token < floor };
  return low.user || low.token ? takeTurn(ctx, relay, caller, low, isGone) : null;
}

/** The low-balance slots of the user and (a limited) token, as one lease, queued up to LowBalanceQueueSeconds. */
async function takeTurn(
  ctx: AppContext,
  relay: RelayState,
  caller: RelayCaller,
  low: { user: boolean; token: boolean },
  isGone: () => boolean,
): Promise<Lease> {
  const deadline = Date.now() + ctx.options.number('LowBalanceQueueSeconds') * 1000;
  const leases: Lease[] = [];
  const lane: Lease = { release: () => leases.splice(0).forEach((lease) => lease.release()) };
  try {
    if (low.user) leases.push(await oneAtATime(relay, `hold:user:${caller.user.id}`, deadline, isGone));
    if (low.token && caller.token) leases.push(await oneAtATime(relay, `hold:token:${caller.token.id}`, deadline, isGone));
    return lane;
  } catch (error) {
    lane.release();
    throw error;
  }
}

async function oneAtATime(relay: RelayState, key: string, deadline: number, isGone: () => boolean): Promise<Lease> {
  const lease = await relay.limiter.acquire(key, 1, { deadline, maxQueued: maxQueuedPerCaller, isCancelled: isGone });
  if (lease) return lease;
  const refusal = new RelayError(
    429,
    'low_balance_queue_timeout',
    '余额较低时请求逐个处理，排队等待已超时，请稍后再试',
    false,
    'rate_limit_error',
  );
  refusal.retryAfterMs = 1000;
  throw refusal;
}

/** The most output tokens `room` pays for after the prompt (at least 1: the caller covers the likely cost, which includes one). */
export function affordableOutput(request: HoldRequest, whole: number, maxOutput: number, quotaPerUnit: number): number {
  const { pricing, groupRatio, promptTokens } = request;
  // Each answer gets the same limit: one answer's share of the room.
  const room = Math.floor(whole / answersOf(request));
  const perPromptToken = groupRatio * pricing.modelRatio;
  const perOutputToken = perPromptToken * pricing.completionRatio;
  if (perOutputToken <= 0) return maxOutput;
  let tokens = Math.min(maxOutput, Math.floor((room - perPromptToken * promptTokens) / perOutputToken));
  // The formula rounds: step down until the hold of this output fits the room.
  while (tokens > 1 && estimateHold(pricing, groupRatio, promptTokens, tokens, 0, quotaPerUnit, request.calls) > room) tokens -= 1;
  return Math.max(1, tokens);
}

/** 403 for a request the balance cannot pay even at its likely cost, saying what it needs and what is left. */
function tooLow(caller: RelayCaller, left: { user: number; token: number }, likely: number, quotaPerUnit: number): RelayError {
  const amount = (quota: number) => `${Math.max(0, Math.floor(quota))} (≈ $${(Math.max(0, quota) / quotaPerUnit).toPrecision(3)})`;
  if (left.user <= 0 || left.user < likely || caller.token === null || left.token >= likely) {
    return new RelayError(
      403,
      'insufficient_user_quota',
      `用户额度不足以支付本次请求：预计需要 ${amount(likely)}，剩余 ${amount(left.user)}`,
    );
  }
  return new RelayError(
    403,
    'insufficient_token_quota',
    `令牌额度不足以支付本次请求：预计需要 ${amount(likely)}，剩余 ${amount(left.token)}`,
  );
}
