import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../api/context.js';
import { findGroupRatio, findModelPricing } from '../billing/pricing.js';
import { estimateHold, type Usage } from '../billing/quota.js';
import { roughTokenEstimate } from '../billing/token-count.js';
import { RelayError } from '../errors.js';
import type { AdapterOptions, ProviderAdapter, RelayEndpoint, RequestOptions } from '../providers/types.js';
import type { RelayState } from '../state.js';
import { checkModelAllowed, type RelayCaller } from './authenticate.js';
import type { RelayChannel } from './channel-index.js';
import { dispatchWithFailover, type ChannelCall, type UpstreamBody, type UpstreamSuccess } from './dispatch.js';
import { checkModelRateLimit } from './rate-limit.js';
import { releaseHold, settle, type Hold } from './settle.js';
import { pipeStream } from './stream.js';

/** One relay request, described by its endpoint module. */
export interface RelayJob {
  endpoint: RelayEndpoint;
  model: string;
  isStream: boolean;
  clientWantsUsage: boolean;
  /** Characters of prompt text, for the cheap pre-consume estimate. */
  promptChars: number;
  maxTokens: number;
  /** Calls billed for per-call models (images: n). */
  calls: number;
  /** The request for one channel (json/form on the OpenAI wire, or a built request with its responder). */
  buildBody(channel: RelayChannel, call: ChannelCall): UpstreamBody | Promise<UpstreamBody>;
  /** Client headers forwarded upstream (anthropic-version, anthropic-beta). */
  clientHeaders?: Record<string, string>;
  /** Per-request URL values (Azure api-version from the query). */
  requestOptions?: RequestOptions;
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
}

const insufficientUserQuota = () => new RelayError(403, 'insufficient_user_quota', '用户额度不足');

function reserve(caller: RelayCaller, amount: number): Hold {
  const { user, token } = caller;
  const userLeft = user.quota - user.pendingQuota - user.held;
  if (userLeft <= 0 || userLeft < amount) throw insufficientUserQuota();
  if (token && !token.isUnlimited && token.remainQuota - token.pendingQuota - token.held < amount) {
    throw new RelayError(403, 'insufficient_token_quota', '令牌额度不足');
  }
  user.held += amount;
  if (token) token.held += amount;
  return { caller, amount, isReleased: false };
}

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
export async function runRelay(ctx: AppContext, relay: RelayState, request: FastifyRequest, reply: FastifyReply, caller: RelayCaller, job: RelayJob): Promise<void> {
  const startedAt = Date.now();
  checkModelAllowed(caller, job.model);
  const pricing = findModelPricing(ctx.options, job.model);
  if (!pricing.isKnown && !ctx.options.bool('SelfUseModeEnabled') && !caller.user.acceptsUnsetModels) {
    throw new RelayError(400, 'model_price_error', `模型 ${job.model} 倍率或价格未配置，请联系管理员设置`);
  }
  await checkModelRateLimit(ctx, caller.user.id);
  const groupRatio = findGroupRatio(ctx.options, caller.group);
  const quotaPerUnit = ctx.options.number('QuotaPerUnit');
  const holdAmount = estimateHold(pricing, groupRatio, roughTokenEstimate(job.promptChars), job.maxTokens, ctx.options.number('PreConsumedQuota'), quotaPerUnit, job.calls);
  const hold = reserve(caller, holdAmount);

  const controller = new CallSignal(reply.raw);
  const abortOnClose = controller.onClientClose;
  reply.raw.on('close', abortOnClose);
  const baseOf = (success: UpstreamSuccess) => ({
    hold, pricing, groupRatio, calls: job.calls, model: job.model, upstreamModel: success.upstreamModel, channelId: success.channel.id,
    tried: success.tried, startedAt, ip: request.ip, requestPath: request.url.split('?')[0]!,
  });
  // Converted, native and inbound answers are given inside the failover loop, so a stream that
  // fails before its first byte is retried on another channel.
  const deliver = async (success: UpstreamSuccess) => {
    if (!success.respond) return;
    reply.raw.off('close', abortOnClose);
    reply.raw.on('close', abortOnClose);
    await success.respond({
      ctx, relay, reply, response: success.response, hold, base: baseOf(success), model: job.model, upstreamModel: success.upstreamModel,
      signal: controller.signal, startedAt,
      abort: () => controller.abort(),
      detach: () => reply.raw.off('close', abortOnClose),
      countPromptTokens: job.countPromptTokens,
    });
  };
  let success: UpstreamSuccess;
  try {
    success = await dispatchWithFailover(ctx, relay, {
      deliver,
      endpoint: job.endpoint,
      model: job.model,
      group: caller.group,
      pinnedChannelId: caller.pinnedChannelId,
      buildBody: job.buildBody,
      signal: controller.signal,
      options: ctx.options as unknown as AdapterOptions,
      clientHeaders: job.clientHeaders,
      requestOptions: job.requestOptions,
    });
  } catch (error) {
    reply.raw.off('close', abortOnClose);
    releaseHold(hold);
    throw error;
  }
  if (success.respond) return;
  const { channel, response } = success;
  const adapter = channel.adapter!;
  const base = baseOf(success);

  if (job.isStream) {
    reply.raw.off('close', abortOnClose);
    reply.hijack();
    const headers = { ...reply.getHeaders(), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' };
    reply.raw.writeHead(200, headers as Record<string, string>);
    const pingEnabled = ctx.options.bool('general_setting.ping_interval_enabled');
    const outcome = await pipeStream({
      upstream: response,
      out: reply.raw,
      transform: adapter.chatStream.createTransform(),
      clientWantsUsage: job.clientWantsUsage,
      idleTimeoutMs: ctx.config.streamIdleTimeoutSeconds * 1000,
      pingIntervalMs: pingEnabled ? ctx.options.number('general_setting.ping_interval_seconds') * 1000 : 0,
      abort: () => controller.abort(),
      startedAt,
      model: job.model,
      countPromptTokens: job.countPromptTokens,
    });
    settle(ctx, relay, { ...base, usage: outcome.usage, isStream: true, frtMs: outcome.frtMs });
    return;
  }

  let bytes: Buffer;
  try {
    bytes = Buffer.from(await response.body.arrayBuffer());
  } catch (error) {
    reply.raw.off('close', abortOnClose);
    releaseHold(hold);
    if (controller.signal.aborted) throw new RelayError(499, 'client_closed', '客户端已断开');
    throw new RelayError(502, 'upstream_error', `读取上游响应失败：${(error as Error).message}`, true);
  }
  reply.raw.off('close', abortOnClose);
  const contentType = String(response.headers['content-type'] ?? 'application/json');
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
  settle(ctx, relay, { ...base, usage, isStream: false, frtMs: Date.now() - startedAt });
  reply.code(response.statusCode).header('content-type', contentType).send(bytes);
}
