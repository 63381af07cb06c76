import type { ServerResponse } from 'node:http';
import type { AppContext } from '../../context.js';
import { findGroupRatioInfo, findModelPricing, unsetModelPricing } from '../billing/pricing.js';
import type { Usage } from '../billing/quota.js';
import { clientStatus, RelayError, UpstreamError, relayErrors } from '../errors.js';
import type { AdapterOptions, ProviderAdapter, RelayEndpoint, RequestOptions } from '../providers/types.js';
import type { RelayState } from '../state.js';
import { checkModelAllowed, type RelayCaller } from './authenticate.js';
import type { RelayChannel } from '../routing/channel-index.js';
import { dispatchWithFailover, type ChannelCall, type UpstreamBody, type UpstreamSuccess } from '../upstream/dispatch.js';
import { sseHeaders, type RelayExchange } from './exchange.js';
import { checkModelRateLimit, releaseSuccessSlot } from './rate-limit.js';
import { OpenAiSseCodec } from '../stream/openai-sse-codec.js';
import type { Delivery } from './respond.js';
import { settle } from '../ledger/settle.js';
import { releaseHold, type Hold } from '../ledger/hold.js';
import { planHold } from '../ledger/hold-policy.js';
import { planFundedHold } from '../ledger/funding-hold.js';
import { checkPrompt, sensitiveGuard } from '../sensitive/guard.js';
import { admitToken } from '../routing/admission.js';
import { crossRetryGroups, resolveAutoGroup } from '../routing/auto-group.js';
import { freeLease, type Lease } from '../routing/concurrency.js';
import { StreamDriver, type StreamOut } from '../stream/stream-driver.js';
import { newAttemptTrace, type AttemptTrace } from '../routing/attempt-loop.js';
import { recordFailedCall } from '../ledger/error-log.js';

/** One relay request, described by its endpoint module. */
export interface RelayJob {
  endpoint: RelayEndpoint;
  model: string;
  isStream: boolean;
  clientWantsUsage: boolean;
  /** Upper estimate of the prompt's tokens, for the hold (jobs/json-body.ts estimatePromptTokens). */
  promptTokens: number;
  maxTokens: number;
  /**
   * Lowers the output limit sent upstream to `tokens` (max_tokens or the format's own field), when the
   * balance pays for no more (ledger/hold-policy.ts). Jobs without generated text have none.
   */
  capOutput?(tokens: number): void;
  /** Calls billed for per-call models (images: n). */
  calls: number;
  /** The request for one channel (json/form on the OpenAI wire, or a built request with its responder). */
  buildBody(channel: RelayChannel, call: ChannelCall): UpstreamBody | Promise<UpstreamBody>;
  /** Client headers forwarded upstream (anthropic-version, anthropic-beta). */
  clientHeaders?: Record<string, string>;
  /** Per-request URL values (Azure api-version from the query). */
  requestOptions?: RequestOptions;
  /** The prompt's text, checked for sensitive words before any upstream call (sensitive/guard.ts). */
  promptText?(): string;
  /** Exact prompt count with the tokenizer; only used when the upstream reports no usage. */
  countPromptTokens(): number;
  /**
   * Optional fast path: usage read from the raw JSON response without parsing all of it; undefined
   * when it cannot tell (then the body is parsed and readUsage runs).
   */
  readUsageFromBytes?(adapter: ProviderAdapter, body: Buffer): Usage | undefined;
  /** Usage of a successful non-stream response (JSON already parsed, or null for binary). */
  readUsage(adapter: ProviderAdapter, response: Record<string, unknown> | null): Usage | null;
  /** Completion tokens of a non-stream response without usage. */
  countCompletionTokens?(response: Record<string, unknown>): number;
  /**
   * The usage of a non-stream answer passed through as it came, read by the job from its bytes and
   * content type (transcriptions: text, srt and vtt answers are not JSON). When present it replaces
   * readUsageFromBytes, readUsage and countCompletionTokens there.
   */
  readAnswerUsage?(adapter: ProviderAdapter, answer: { bytes: Buffer; contentType: string }): Usage;
}

const producesText = (endpoint: RelayEndpoint): boolean => endpoint === 'chat' || endpoint === 'completions';

/**
 * The abort signal of one relay call, aborted when the client goes away before its answer is done.
 * A stand-in for AbortController/AbortSignal, which cost several µs per request (EventTarget set-up,
 * undici's addEventListener/removeEventListener on it): its users only read `aborted`/`reason` and
 * add or remove 'abort' listeners (undici's request takes an EventTarget or EventEmitter signal).
 */
class CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<(event: { type: 'abort' }) => void> | null = null;

  constructor(private readonly out: ServerResponse) {}

  /** The client response's 'close' listener: a close before the answer finished aborts the call. */
  readonly onClientClose = (): void => {
    if (!this.out.writableFinished) this.abort();
  };

  addEventListener(type: string, listener: (event: { type: 'abort' }) => void): void {
    if (type === 'abort' && !this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(type: string, listener: (event: { type: 'abort' }) => void): void {
    const index = type === 'abort' && this.listeners ? this.listeners.indexOf(listener) : -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const listener of listeners) listener.call(this, { type: 'abort' });
  }

  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}

/** Checks, holds, dispatches with failover, relays the answer and settles the bill. */
export function runRelay(ctx: AppContext, relay: RelayState, exchange: RelayExchange, caller: RelayCaller, job: RelayJob): Promise<void> {
  // Counted so a graceful shutdown waits for the bill of a call it had to cut (no async frame of its own: this is every request).
  const { lifecycle } = ctx;
  lifecycle.callStarted();
  const startedAt = Date.now();
  const trace = newAttemptTrace();
  return relayCall(ctx, relay, exchange, caller, job, trace).then(() => lifecycle.callEnded(), (error: unknown) => {
    lifecycle.callEnded();
    if (ctx.metrics.isEnabled) observeFailure(ctx, exchange, job, error, startedAt);
    // The error log (type 5, ErrorLogEnabled): queued for the write-behind flush, nothing billed.
    recordFailedCall(ctx, relay, { caller, model: job.model, error, trace, isStream: job.isStream, startedAt, requestPath: exchange.path });
    throw error;
  });
}

/** A failed relay call in the metrics: the status the caller is answered; an unpriced model name is not a label. */
function observeFailure(ctx: AppContext, exchange: RelayExchange, job: RelayJob, error: unknown, startedAt: number): void {
  const failure = error instanceof RelayError ? error : null;
  const status = failure ? clientStatus(failure) : 500;
  const model = findModelPricing(ctx.options, job.model).isKnown ? job.model : 'other';
  ctx.metrics.observe({ route: exchange.path, model, channelId: null, status, durationMs: Date.now() - startedAt });
}

async function relayCall(ctx: AppContext, relay: RelayState, exchange: RelayExchange, requester: RelayCaller, job: RelayJob, trace: AttemptTrace): Promise<void> {
  const startedAt = Date.now();
  checkModelAllowed(requester, job.model);
  const { options } = ctx;
  // An `auto` token: the first of its auto groups with a channel for the model.
  const caller = resolveAutoGroup(relay, requester, job.model);
  // A model no enabled channel serves is unknown here, priced or not (a pinned channel is checked when tried).
  if (caller.pinnedChannelId === null && !relay.channels.hasModel(caller.group, job.model)) throw relayErrors.noChannel(caller.group, job.model);
  const found = findModelPricing(options, job.model);
  if (!found.isKnown && !options.bool('SelfUseModeEnabled') && !caller.user.acceptsUnsetModels) throw relayErrors.unpriced(job.model);
  const pricing = unsetModelPricing(options, found);
  if (job.promptText) checkPrompt(sensitiveGuard(options), job.promptText);
  // A success slot is kept when the request is billed (settle), given back when it fails.
  const successSlot = await checkModelRateLimit(ctx, caller.user.id);
  // The hold is taken at the first group's ratio; a cross-group retry bills the group that served.
  const { groupRatio } = findGroupRatioInfo(options, caller.user.group, caller.group);
  // The likely cost, or for a low balance one call at a time with the output it pays for (ledger/hold-policy.ts).
  let hold: Hold;
  // The output limit the balance paid for, when the gateway lowered it; an answer that reached it is not a typical length.
  let cap = Infinity;
  try {
    const holdRequest = { pricing, groupRatio, model: job.model, promptTokens: job.promptTokens, maxTokens: job.maxTokens, producesText: producesText(job.endpoint), calls: job.calls };
    // A user with subscription funding holds its share in the database first (ledger/funding-hold.ts).
    const planned = caller.user.funding === null ? planHold(ctx, relay, caller, holdRequest, () => exchange.raw.destroyed)
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
  const passStream = async (answered: UpstreamSuccess): Promise<Delivery> => {
    const answer = answered.answer!;
    out.off('close', abortOnClose);
    const pingEnabled = options.bool('general_setting.ping_interval_enabled');
    const driver = new StreamDriver({
      out: out as unknown as StreamOut,
      codec: new OpenAiSseCodec({ transform: answered.channel.adapter!.chatStream.createTransform(), clientWantsUsage: job.clientWantsUsage, startedAt, model: job.model, acceptLanguage: exchange.headers['accept-language'] }),
      idleTimeoutMs: ctx.config.streamIdleTimeoutSeconds * 1000,
      pingIntervalMs: pingEnabled ? options.number('general_setting.ping_interval_seconds') * 1000 : 0,
      abort: () => controller.abort(),
      startedAt,
      countPromptTokens: job.countPromptTokens,
      start: () => exchange.startStream(sseHeaders),
      cancel: () => answer.cancel(),
      acceptLanguage: exchange.headers['accept-language'],
    }, () => answer.resume());
    answer.stream(driver);
    const outcome = await driver.done;
    if (!outcome.isStarted && outcome.error !== null && !outcome.isClientGone && !outcome.isIdleTimeout) {
      // Failed before its first byte (an error event first, the upstream gone): another channel may serve it.
      out.on('close', abortOnClose);
      if (outcome.error instanceof RelayError) throw outcome.error;
      throw new UpstreamError(0, `读取上游响应失败：${(outcome.error as Error).message}`, null, '');
    }
    return { usage: outcome.usage, isStream: true, frtMs: outcome.frtMs };
  };
  let success: UpstreamSuccess;
  let servedGroup = caller.group;
  let delivery: Delivery | undefined;
  try {
    if (caller.token !== null && caller.token.maxConcurrency > 0) {
      const admitted = admitToken(ctx, relay, caller, () => exchange.raw.destroyed);
      tokenLease = admitted instanceof Promise ? await admitted : admitted;
    }
    const served = await dispatchWithFailover(ctx, relay, {
      // Every streamed answer, and converted, native and inbound answers, are given inside the
      // failover loop, so a stream that fails before its first byte is retried on another channel.
      deliver: async (answered) => {
        if (answered.respond) delivery = await deliver(ctx, relay, exchange, job, controller, answered, startedAt);
        else if (job.isStream) delivery = await passStream(answered);
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
  // The answer is complete (a stream was delivered inside the failover loop; a non-stream one is read).
  tokenLease.release();
  out.off('close', abortOnClose);
  delivery ??= passAnswer(job, success, exchange, startedAt);
  // The one place a relayed request is billed (the hold becomes the bill), before a non-stream answer goes out.
  const ratios = findGroupRatioInfo(options, caller.user.group, servedGroup);
  const quota = settle(ctx, relay, {
    hold, pricing, groupRatio: ratios.groupRatio, userGroupRatio: ratios.userGroupRatio, group: servedGroup, usage: delivery.usage, calls: delivery.calls ?? job.calls, model: job.model, upstreamModel: success.upstreamModel,
    channelId: success.channel.id, tried: success.tried, isStream: delivery.isStream, startedAt, frtMs: delivery.frtMs, ip: exchange.ip, requestPath: exchange.path,
  });
  delivery.send?.();
  if (producesText(job.endpoint) && delivery.usage.completionTokens < cap) relay.outputs.observe(job.model, delivery.usage.completionTokens);
  if (ctx.metrics.isEnabled) {
    ctx.metrics.observe({
      route: exchange.path, model: pricing.isKnown ? job.model : 'other', channelId: success.channel.id, status: 200, durationMs: Date.now() - startedAt,
      firstByteMs: delivery.isStream ? delivery.frtMs : undefined, promptTokens: delivery.usage.promptTokens, completionTokens: delivery.usage.completionTokens, quota,
    });
  }
}

/** A non-stream OpenAI-wire answer passed through as it came: its usage (read fast from the bytes when it can). */
function passAnswer(job: RelayJob, success: UpstreamSuccess, exchange: RelayExchange, startedAt: number): Delivery {
  const { channel, head } = success;
  const adapter = channel.adapter!;
  const bytes = head!.body!;
  const contentType = head!.contentType || 'application/json';
  const send = () => exchange.send(head!.statusCode, contentType, bytes);
  if (job.readAnswerUsage) return { usage: job.readAnswerUsage(adapter, { bytes, contentType }), isStream: false, frtMs: Date.now() - startedAt, send };
  const isJson = contentType.includes('json');
  let usage: Usage | null | undefined = isJson ? job.readUsageFromBytes?.(adapter, bytes) : undefined;
  let parsed: Record<string, unknown> | null = null;
  if (usage === undefined) {
    if (isJson) {
      try {
        parsed = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      } catch {
        parsed = null;
      }
    }
    usage = job.readUsage(adapter, parsed);
  }
  if (!usage) {
    const completion = parsed && job.countCompletionTokens ? job.countCompletionTokens(parsed) : 0;
    usage = { promptTokens: job.countPromptTokens(), completionTokens: completion, cachedTokens: 0 };
  }
  return { usage, isStream: false, frtMs: Date.now() - startedAt, send };
}

/** Gives a responder's answer (conversion, native pass-through, inbound formats) to the client. */
async function deliver(ctx: AppContext, relay: RelayState, exchange: RelayExchange, job: RelayJob, controller: CallSignal, success: UpstreamSuccess, startedAt: number): Promise<Delivery> {
  const out = exchange.raw;
  const abortOnClose = controller.onClientClose;
  out.off('close', abortOnClose);
  out.on('close', abortOnClose);
  return success.respond!({
    ctx, relay, exchange, response: success.response!, model: job.model, upstreamModel: success.upstreamModel,
    signal: controller.signal, startedAt,
    abort: () => controller.abort(),
    detach: () => out.off('close', abortOnClose),
    countPromptTokens: job.countPromptTokens,
  });
}
