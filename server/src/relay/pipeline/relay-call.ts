import type { AppContext } from '../../context.js';
import { findGroupRatioInfo, findModelPricing, unsetModelPricing } from '../billing/pricing.js';
import { relayErrors } from '../errors.js';
import type { AdapterOptions, RelayEndpoint } from '../providers/types.js';
import type { RelayState } from '../state.js';
import { checkModelAllowed, type RelayCaller } from './authenticate.js';
import { dispatchWithFailover, type UpstreamSuccess } from '../upstream/dispatch.js';
import type { RelayExchange } from './exchange.js';
import { CallSignal } from './call-signal.js';
import type { RelayJob } from './relay-job.js';
import { checkModelRateLimit, releaseSuccessSlot } from './rate-limit.js';
import type { Delivery } from './respond.js';
import { settle } from '../ledger/settle.js';
import { releaseHold, type Hold } from '../ledger/hold.js';
import { planHold } from '../ledger/hold-policy.js';
import { planFundedHold } from '../ledger/funding-hold.js';
import { checkPrompt, sensitiveGuard } from '../sensitive/guard.js';
import { admitToken } from '../routing/admission.js';
import { crossRetryGroups, resolveAutoGroup } from '../routing/auto-group.js';
import { freeLease, type Lease } from '../routing/concurrency.js';
import { newAttemptTrace, type AttemptTrace } from '../routing/attempt-loop.js';
import { recordFailedCall } from '../ledger/error-log.js';
import { responseCacheTtl } from '../cache/settings.js';
import { keepAnswer, lookUpAnswer, serveCachedAnswer } from '../cache/response-cache.js';
import { CallSpan } from '../tracing/call-span.js';
import { modelLabel, observeFailed } from './call-metrics.js';

const producesText = (endpoint: RelayEndpoint): boolean => endpoint === 'chat' || endpoint === 'completions';

/** Checks, holds, dispatches with failover, relays the answer and settles the bill. */
export function runRelay(ctx: AppContext, relay: RelayState, exchange: RelayExchange, caller: RelayCaller, job: RelayJob): Promise<void> {
  // Counted so a graceful shutdown waits for the bill of a call it had to cut (no async frame of its own: this is every request).
  const { lifecycle } = ctx;
  lifecycle.callStarted();
  const startedAt = Date.now();
  const trace = newAttemptTrace();
  // Tracing off (ctx.tracing null): no span, no attributes, no header work; one check here and one per attempt.
  if (ctx.tracing !== null) trace.span = startCallSpan(ctx.tracing, exchange, caller, job);
  return relayCall(ctx, relay, exchange, caller, job, trace).then(
    () => {
      lifecycle.callEnded();
      if (trace.span !== null) trace.span.end();
    },
    (error: unknown) => {
      lifecycle.callEnded();
      if (trace.span !== null) trace.span.end(error);
      if (ctx.metrics.isEnabled) observeFailed(ctx, exchange.path, job.model, error, startedAt);
      // The error log (type 5, ErrorLogEnabled): queued for the write-behind flush, nothing billed.
      recordFailedCall(ctx, relay, {
        caller,
        model: job.model,
        error,
        trace,
        isStream: job.isStream,
        startedAt,
        requestPath: exchange.path,
      });
      throw error;
    },
  );
}

function startCallSpan(tracing: NonNullable<AppContext['tracing']>, exchange: RelayExchange, caller: RelayCaller, job: RelayJob): CallSpan {
  return new CallSpan(tracing, {
    operation: job.endpoint,
    model: job.model,
    path: exchange.path,
    isStream: job.isStream,
    userId: caller.user.id,
    tokenId: caller.token?.id ?? null,
    group: caller.group,
    maxTokens: job.maxTokens,
    headers: exchange.headers,
    // Read only when message content is captured: a chat format's messages, else the prompt as one user message.
    inputMessages: () => job.messages ?? (job.promptText ? [{ role: 'user', content: job.promptText() }] : null),
  });
}

async function relayCall(
  ctx: AppContext,
  relay: RelayState,
  exchange: RelayExchange,
  requester: RelayCaller,
  job: RelayJob,
  trace: AttemptTrace,
): Promise<void> {
  const startedAt = Date.now();
  checkModelAllowed(requester, job.model);
  const { options } = ctx;
  // An `auto` token: the first of its auto groups with a channel for the model.
  const caller = resolveAutoGroup(relay, requester, job.model);
  // A model no enabled channel serves is unknown here, priced or not (a pinned channel is checked when tried).
  if (caller.pinnedChannelId === null && !relay.channels.hasModel(caller.group, job.model))
    throw relayErrors.noChannel(caller.group, job.model);
  const found = findModelPricing(options, job.model);
  if (!found.isKnown && !options.bool('SelfUseModeEnabled') && !caller.user.acceptsUnsetModels) throw relayErrors.unpriced(job.model);
  const pricing = unsetModelPricing(options, found);
  if (job.promptText) checkPrompt(sensitiveGuard(options), job.promptText);
  // A success slot is kept when the request is billed (settle), given back when it fails.
  const limited = checkModelRateLimit(ctx, caller.user.id);
  const successSlot = limited === null ? null : await limited;
  // The response cache (relay/cache/), when a setting turns it on for this caller: a hit is answered and billed there.
  const cacheTtl = responseCacheTtl(options, caller);
  const cached = cacheTtl > 0 ? await lookUpAnswer(ctx, relay, exchange, caller, job, cacheTtl) : null;
  if (cached?.hit) {
    const billed = await serveCachedAnswer(ctx, relay, { exchange, caller, job, pricing, answer: cached.hit, startedAt }).catch(
      (error: unknown) => {
        releaseSuccessSlot(ctx, successSlot);
        throw error;
      },
    );
    if (trace.span !== null) trace.span.answeredFromCache(cached.hit.usage, billed);
    return;
  }
  if (cached !== null && trace.span !== null) trace.span.cacheLookedUp(cached.recording !== null);
  // The hold is taken at the first group's ratio; a cross-group retry bills the group that served.
  const { groupRatio } = findGroupRatioInfo(options, caller.user.group, caller.group);
  // The likely cost, or for a low balance one call at a time with the output it pays for (ledger/hold-policy.ts).
  let hold: Hold;
  // The output limit the balance paid for, when the gateway lowered it; an answer that reached it is not a typical length.
  let cap = Infinity;
  try {
    const holdRequest = {
      pricing,
      groupRatio,
      model: job.model,
      promptTokens: job.promptTokens,
      maxTokens: job.maxTokens,
      producesText: producesText(job.endpoint),
      calls: job.calls,
      answers: job.answers,
    };
    // A user with subscription funding holds its share in the database first (ledger/funding-hold.ts).
    const planned =
      caller.user.funding === null
        ? planHold(ctx, relay, caller, holdRequest, () => exchange.raw.destroyed)
        : planFundedHold(ctx, relay, caller, holdRequest, () => exchange.raw.destroyed);
    const { hold: taken, outputCap } = planned instanceof Promise ? await planned : planned;
    hold = taken;
    if (outputCap !== null && job.capOutput) {
      job.capOutput(outputCap);
      cap = outputCap;
    }
  } catch (error) {
    releaseSuccessSlot(ctx, successSlot);
    throw error;
  }
  // The token's concurrency slot (tokens.max_concurrency), taken in the try below and held until the answer is complete.
  let tokenLease: Lease = freeLease;

  const out = exchange.raw;
  const controller = new CallSignal(out);
  const abortOnClose = controller.onClientClose;
  out.on('close', abortOnClose);
  let success: UpstreamSuccess;
  let servedGroup = caller.group;
  let delivery: Delivery | undefined;
  try {
    if (caller.token !== null && caller.token.maxConcurrency > 0) {
      const admitted = admitToken(ctx, relay, caller, () => exchange.raw.destroyed);
      tokenLease = admitted instanceof Promise ? await admitted : admitted;
    }
    const served = await dispatchWithFailover(ctx, relay, {
      // Every answer is given by its responder inside the failover loop (the one delivery path), so a
      // stream that fails before its first byte is retried on another channel.
      deliver: (answered) => {
        const delivering = deliver(ctx, relay, exchange, job, controller, answered, startedAt);
        if (!(delivering instanceof Promise)) {
          delivery = delivering;
          return undefined;
        }
        return delivering.then((delivered) => {
          delivery = delivered;
        });
      },
      endpoint: job.endpoint,
      model: job.model,
      group: caller.group,
      nextGroups: caller.pinnedChannelId === null ? crossRetryGroups(relay, caller, job.model) : undefined,
      pinnedChannelId: caller.pinnedChannelId,
      buildBody: job.buildBody,
      isStream: job.isStream,
      signal: controller.signal,
      options: options as unknown as AdapterOptions,
      clientHeaders: job.clientHeaders,
      requestOptions: job.requestOptions,
      trace,
    });
    success = served.value;
    servedGroup = served.group;
  } catch (error) {
    // The one place a failed request gives its hold (and rate-limit and concurrency slots) back.
    out.off('close', abortOnClose);
    releaseHold(hold);
    releaseSuccessSlot(ctx, successSlot);
    tokenLease.release();
    throw error;
  }
  // The answer is complete: a stream was delivered inside the failover loop, a non-stream one is read.
  tokenLease.release();
  out.off('close', abortOnClose);
  if (!delivery) throw new Error('the attempt loop ended without a delivery');
  // The one place a relayed request is billed (the hold becomes the bill), before a non-stream answer goes out.
  const ratios = findGroupRatioInfo(options, caller.user.group, servedGroup);
  const settled = settle(ctx, relay, {
    hold,
    pricing,
    groupRatio: ratios.groupRatio,
    userGroupRatio: ratios.userGroupRatio,
    group: servedGroup,
    usage: delivery.usage,
    calls: delivery.calls ?? job.calls,
    model: job.model,
    upstreamModel: success.upstreamModel,
    channelId: success.channel.id,
    tried: success.tried,
    isStream: delivery.isStream,
    startedAt,
    frtMs: delivery.frtMs,
    ip: exchange.ip,
    requestPath: exchange.path,
  });
  // A call a subscription helped pay answers once its split is written (settle.ts).
  const quota = settled instanceof Promise ? await settled : settled;
  delivery.send?.();
  // After the answer is sent: the span's attributes never delay it.
  if (trace.span !== null) {
    trace.span.settled({
      upstreamModel: success.upstreamModel,
      channelId: success.channel.id,
      group: servedGroup,
      quota,
      startedAt,
      usage: delivery.usage,
      firstChunkAt: delivery.isStream ? startedAt + delivery.frtMs : null,
    });
    if (producesText(job.endpoint)) trace.span.answered(delivery.answer);
  }
  if (cached?.recording)
    keepAnswer(relay, cached.recording, {
      usage: delivery.usage,
      quota,
      isStream: delivery.isStream,
      isComplete: delivery.isComplete !== false && cap === Infinity,
    });
  // The likely output is one answer's: several answers (n) are learnt as their mean.
  const answerTokens = Math.round(delivery.usage.completionTokens / Math.max(1, job.answers ?? 1));
  if (producesText(job.endpoint) && answerTokens < cap) relay.outputs.observe(job.model, answerTokens);
  if (ctx.metrics.isEnabled) {
    ctx.metrics.observe({
      route: exchange.path,
      model: modelLabel(ctx, job.model, pricing.isKnown),
      channelId: success.channel.id,
      status: 200,
      durationMs: Date.now() - startedAt,
      firstByteMs: delivery.isStream ? delivery.frtMs : undefined,
      promptTokens: delivery.usage.promptTokens,
      completionTokens: delivery.usage.completionTokens,
      quota,
    });
  }
}

/** Gives an upstream answer to the client through its responder: the one delivery path. */
function deliver(
  ctx: AppContext,
  relay: RelayState,
  exchange: RelayExchange,
  job: RelayJob,
  controller: CallSignal,
  success: UpstreamSuccess,
  startedAt: number,
): Promise<Delivery> | Delivery {
  const out = exchange.raw;
  const abortOnClose = controller.onClientClose;
  return success.respond({
    ctx,
    relay,
    exchange,
    job,
    channel: success.channel,
    response: success.response,
    answer: success.answer,
    head: success.head,
    model: job.model,
    upstreamModel: success.upstreamModel,
    signal: controller.signal,
    startedAt,
    abort: () => controller.abort(),
    detach: () => out.off('close', abortOnClose),
    attach: () => {
      out.off('close', abortOnClose);
      out.on('close', abortOnClose);
    },
    countPromptTokens: job.countPromptTokens,
  });
}
