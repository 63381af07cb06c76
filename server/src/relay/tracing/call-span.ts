import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import type { Tracing } from '../../tracing/tracing.js';
import { RelayError, UpstreamError, clientStatus } from '../errors.js';
import type { RelayChannel } from '../routing/channel-index.js';
import { cappedJson, outputMessagesOf } from './message-content.js';

/**
 * The trace of one relayed call (docs/observability.md): a SERVER span for the request and a CLIENT
 * span per upstream attempt, with the OpenTelemetry GenAI semantic conventions' attribute names
 * (`gen_ai.*`, from @opentelemetry/semantic-conventions/incubating, written out here so the large
 * incubating module is not loaded) and ModelGate's own under `modelgate.*`. Ids only: never a key,
 * and prompt or completion text only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 *
 * Only built when tracing is on (ctx.tracing): the relay holds `CallSpan | null` and checks it.
 */

/** gen_ai.operation.name for a relay endpoint: the convention's names where one fits, else the endpoint's. */
const operations: Record<string, string> = { chat: 'chat', completions: 'text_completion', embeddings: 'embeddings' };

/** gen_ai.provider.name: the convention's well-known values for the providers that have one, else the adapter's slug. */
const providerNames: Record<string, string> = {
  openai: 'openai',
  azure: 'azure.ai.openai',
  anthropic: 'anthropic',
  'aws-bedrock': 'aws.bedrock',
  vertex: 'gcp.vertex_ai',
  gemini: 'gcp.gemini',
  deepseek: 'deepseek',
  mistral: 'mistral_ai',
  xai: 'x_ai',
  cohere: 'cohere',
};

export interface CallStart {
  /** The endpoint (chat, embeddings, …) or the kind of call (task submit, realtime). */
  operation: string;
  model: string;
  path: string;
  isStream: boolean;
  userId: number;
  tokenId: number | null;
  group: string;
  /** The output limit the client asked for (0: none). */
  maxTokens?: number;
  /** The client's headers: a valid traceparent/tracestate makes the request span its child. */
  headers?: IncomingHttpHeaders;
  /** The request's messages, read only when message content is captured (tracing.capturesContent). */
  inputMessages?(): unknown;
}

export interface CallSettled {
  upstreamModel: string;
  channelId: number;
  group: string;
  /** Token counts, for calls billed by tokens (a task submit is billed per call: none). */
  usage: { promptTokens: number; completionTokens: number; cachedTokens: number } | null;
  /** The quota billed (the log row's quota). */
  quota: number;
  /** Epoch ms of the first byte to the client, for a stream. */
  firstChunkAt: number | null;
  startedAt: number;
}

/**
 * error.type of a failure, low cardinality: an upstream's HTTP status (its own error codes are the
 * upstream's text), the relay error's code, else the error's class.
 */
function errorTypeOf(error: unknown): string {
  if (error instanceof UpstreamError) return error.upstreamStatus > 0 ? String(error.upstreamStatus) : 'upstream_unreachable';
  return error instanceof RelayError ? error.code : error instanceof Error ? error.name : 'error';
}

export class CallSpan {
  private readonly span: Span;
  private readonly parent: Context;
  private readonly operation: string;
  private readonly model: string;
  private attempt: Span | null = null;
  /** The model the current attempt asked its upstream for (after the channel's model mapping). */
  private upstreamModel: string | null = null;
  private attemptParent: Context = ROOT_CONTEXT;
  /**
   * A failed attempt the retry policy would go on from, held open (its end time taken) until it is
   * known whether another attempt follows: only then does it get modelgate.retry_reason.
   */
  private retriable: { span: Span; reason: string; endedAt: number } | null = null;

  constructor(
    private readonly tracing: Tracing,
    start: CallStart,
  ) {
    this.operation = operations[start.operation] ?? start.operation;
    this.model = start.model;
    // A malformed traceparent is ignored by the propagator: the call starts a trace of its own.
    const remote = start.headers ? tracing.propagator.extract(ROOT_CONTEXT, start.headers, defaultTextMapGetter) : ROOT_CONTEXT;
    const attributes: Attributes = {
      'gen_ai.operation.name': this.operation,
      'gen_ai.request.model': start.model,
      'gen_ai.request.stream': start.isStream,
      'url.path': start.path,
      'modelgate.user.id': start.userId,
      'modelgate.group': start.group,
    };
    if (start.tokenId !== null) attributes['modelgate.token.id'] = start.tokenId;
    if (start.maxTokens) attributes['gen_ai.request.max_tokens'] = start.maxTokens;
    if (tracing.capturesContent && start.inputMessages) {
      const messages = start.inputMessages();
      if (messages != null) attributes['gen_ai.input.messages'] = cappedJson(messages);
    }
    this.span = tracing.tracer.startSpan(`${this.operation} ${start.model}`, { kind: SpanKind.SERVER, attributes }, remote);
    this.parent = trace.setSpan(ROOT_CONTEXT, this.span);
  }

  /** One upstream attempt begins on a channel (the attempt loop). */
  startAttempt(channel: RelayChannel, number: number): void {
    if (this.retriable !== null) this.closeRetriable(true);
    const slug = channel.adapter?.slug ?? 'unknown';
    this.attempt = this.tracing.tracer.startSpan(
      `${this.operation} ${this.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': this.operation,
          'gen_ai.provider.name': providerNames[slug] ?? slug,
          'gen_ai.request.model': this.model,
          'modelgate.channel.id': channel.id,
          'modelgate.channel.type': channel.type,
          'modelgate.attempt': number,
        },
      },
      this.parent,
    );
    this.attemptParent = trace.setSpan(ROOT_CONTEXT, this.attempt);
  }

  /**
   * The attempt's request is about to go out: its upstream model and host, and the attempt's W3C
   * trace context added to its headers (the upstream sees the attempt span as its parent).
   */
  sending(headers: Record<string, string>, url: string, upstreamModel: string): void {
    const attempt = this.attempt;
    if (attempt === null) return;
    this.upstreamModel = upstreamModel;
    attempt.setAttribute('modelgate.upstream_model', upstreamModel);
    try {
      const { hostname, port, protocol } = new URL(url);
      attempt.setAttribute('server.address', hostname);
      attempt.setAttribute('server.port', port ? Number(port) : protocol === 'https:' || protocol === 'wss:' ? 443 : 80);
    } catch {
      // A channel whose base URL is not a URL fails in sending, as its own failure.
    }
    this.tracing.propagator.inject(this.attemptParent, headers, defaultTextMapSetter);
  }

  /** The attempt answered 2xx and its answer reached the client: served by the model it asked for. */
  attemptSucceeded(): void {
    const attempt = this.attempt;
    if (attempt === null) return;
    if (this.upstreamModel !== null) attempt.setAttribute('gen_ai.response.model', this.upstreamModel);
    attempt.setStatus({ code: SpanStatusCode.OK });
    attempt.end();
    this.attempt = null;
    this.upstreamModel = null;
  }

  /**
   * The attempt failed: its upstream status and error.type always. When the retry policy lets the call
   * go on (isRetryable), the span waits for the next startAttempt to add why it was retried
   * (modelgate.retry_reason); when no other channel is left the call's end closes it without one.
   */
  attemptFailed(error: unknown, isRetryable: boolean): void {
    const attempt = this.attempt;
    if (attempt === null) return;
    const type = errorTypeOf(error);
    attempt.setAttribute('error.type', type);
    attempt.setStatus({ code: SpanStatusCode.ERROR, message: type });
    this.attempt = null;
    this.upstreamModel = null;
    if (error instanceof UpstreamError) {
      if (error.upstreamStatus > 0) attempt.setAttribute('http.response.status_code', error.upstreamStatus);
      if (isRetryable) {
        // performance.now(): the SDK reads it as its own clock, so the span ends when the attempt did.
        this.retriable = {
          span: attempt,
          reason: error.upstreamStatus === 0 ? 'upstream_unreachable' : `upstream_status_${error.upstreamStatus}`,
          endedAt: performance.now(),
        };
        return;
      }
    }
    attempt.end();
  }

  /** Ends the failed attempt held by attemptFailed, with the retry reason when another attempt followed. */
  private closeRetriable(isRetried: boolean): void {
    const { span, reason, endedAt } = this.retriable!;
    this.retriable = null;
    if (isRetried) span.setAttribute('modelgate.retry_reason', reason);
    span.end(endedAt);
  }

  /** The call was billed: what it used and cost, which channel served it, and a stream's first chunk. */
  settled(result: CallSettled): void {
    const span = this.span;
    span.setAttributes({
      'gen_ai.response.model': result.upstreamModel,
      'modelgate.quota': result.quota,
      'modelgate.channel.id': result.channelId,
      'modelgate.served_group': result.group,
    });
    const { usage } = result;
    if (usage !== null) {
      span.setAttributes({
        'gen_ai.usage.input_tokens': usage.promptTokens,
        'gen_ai.usage.output_tokens': usage.completionTokens,
        'modelgate.usage.cached_input_tokens': usage.cachedTokens,
      });
    }
    if (result.firstChunkAt !== null) {
      span.setAttribute('gen_ai.response.time_to_first_chunk', (result.firstChunkAt - result.startedAt) / 1000);
      span.addEvent('modelgate.first_chunk', undefined, result.firstChunkAt);
    }
  }

  /**
   * The response cache answered the call (relay/cache/): no attempt was made; the span carries the
   * kept answer's token counts and the quota the hit was billed (hit_ratio of the original call's).
   */
  answeredFromCache(usage: { promptTokens: number; completionTokens: number; cachedTokens: number }, quota: number): void {
    this.span.setAttributes({
      'modelgate.cache': 'hit',
      'modelgate.quota': quota,
      'gen_ai.usage.input_tokens': usage.promptTokens,
      'gen_ai.usage.output_tokens': usage.completionTokens,
    });
  }

  /** The cache was on for the call and did not answer it: `miss` (the answer will be kept) or `bypass`. */
  cacheLookedUp(isRecorded: boolean): void {
    this.span.setAttribute('modelgate.cache', isRecorded ? 'miss' : 'bypass');
  }

  /**
   * The answer the client was sent (its object, bytes or text), after it went out: its messages as
   * gen_ai.output.messages when message content is captured, else nothing is read.
   */
  answered(answer: unknown): void {
    if (!this.tracing.capturesContent || answer === undefined) return;
    const messages = outputMessagesOf(answer);
    if (messages !== null) this.span.setAttribute('gen_ai.output.messages', cappedJson(messages));
  }

  /** The call ended: answered (status OK) or failed with the error the client got. */
  end(error?: unknown): void {
    const span = this.span;
    // An attempt still open (a non-relay error thrown past the loop) ends with the call; a failed one
    // held for its retry reason was the last attempt.
    if (this.attempt !== null) this.attemptFailed(error, false);
    if (this.retriable !== null) this.closeRetriable(false);
    if (error === undefined) {
      span.setStatus({ code: SpanStatusCode.OK });
    } else {
      const type = errorTypeOf(error);
      span.setAttribute('error.type', type);
      span.setAttribute('http.response.status_code', error instanceof RelayError ? clientStatus(error) : 500);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
    }
    span.end();
  }
}
