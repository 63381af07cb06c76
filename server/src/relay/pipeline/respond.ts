import { Writable } from 'node:stream';
import type { BodyBudget } from '../../http/request-body.js';
import type { UpstreamResponse } from '../providers/types.js';
import type { RelayChannel } from '../routing/channel-index.js';
import { answerTooLarge, maxAnswerBytes, type AnswerHead, type UpstreamAnswer } from '../upstream/upstream-answer.js';
import type { RelayJob } from './relay-job.js';
import type { AppContext } from '../../context.js';
import type { Usage } from '../billing/quota.js';
import { RelayError, UpstreamError, relayErrors } from '../errors.js';
import type { RelayState } from '../state.js';
import { EventCodec, type EventHandler } from '../stream/event-codec.js';
import { sseHeaders, type RelayExchange } from './exchange.js';
import { createFramingDecoder, type DecoderFraming } from '../stream/framing.js';
import { pump, StreamDriver, type StreamOut } from '../stream/stream-driver.js';

/**
 * Everything a responder needs to answer the client. The upstream's 2xx answer is `response`
 * (undici.request, for a request an adapter built) or `answer` with its `head` (undici's dispatch
 * API, for the OpenAI-wire pass-through: providers/openai/passthrough.ts).
 */
export interface ResponseContext {
  ctx: AppContext;
  relay: RelayState;
  exchange: RelayExchange;
  job: RelayJob;
  channel: RelayChannel;
  response?: UpstreamResponse;
  answer?: UpstreamAnswer;
  head?: AnswerHead;
  /** Model the client asked for (answers carry it). */
  model: string;
  upstreamModel: string;
  signal: AbortSignal;
  abort(): void;
  /** Stops watching the client connection (the answer's reader watches it from here). */
  detach(): void;
  /** Watches the client connection again: nothing reached the client, another channel may be tried. */
  attach(): void;
  startedAt: number;
  countPromptTokens(): number;
}

/**
 * What an answer bills, handed back to the one place that settles (relay-call.ts). A non-stream
 * answer is written by `send` once it is billed; a stream has already been written.
 */
export interface Delivery {
  usage: Usage;
  isStream: boolean;
  frtMs: number;
  /** Billed calls for per-call prices (Cohere rerank search units); the job's count when absent. */
  calls?: number;
  /** A stream that ended normally (no upstream error, idle timeout or client gone); absent for a whole answer. */
  isComplete?: boolean;
  send?(): void;
  /**
   * The non-stream answer sent (an object, or its bytes or text): a reference, read after it was sent
   * only by a trace that captures message content. Streams have none (never buffered for it).
   */
  answer?: unknown;
}

/** Answers the client from one upstream answer; the one delivery path of relay-call.ts. */
export type Responder = (rc: ResponseContext) => Promise<Delivery> | Delivery;

/** The undici.request answer of a responder that reads a built request's response. */
function responseOf(rc: ResponseContext): UpstreamResponse {
  if (!rc.response) throw new Error('this responder reads an undici.request answer');
  return rc.response;
}

/**
 * Streams the answer through the one stream driver with an event codec (a framing decoder and an
 * event handler). `isCollected`: nothing is written to the client (the handler aggregates; the
 * caller answers afterwards).
 */
export async function streamAnswer(
  rc: ResponseContext,
  framing: DecoderFraming,
  handler: EventHandler,
  mode: { isCollected?: boolean } = {},
): Promise<Delivery> {
  rc.detach();
  const isCollected = mode.isCollected === true;
  const client = rc.exchange.raw as unknown as StreamOut;
  const { ctx } = rc;
  const waiter = { resume: () => undefined as void };
  const driver = new StreamDriver(
    {
      out: isCollected ? (new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as StreamOut) : client,
      clientOut: isCollected ? client : undefined,
      codec: new EventCodec(createFramingDecoder(framing), handler),
      idleTimeoutMs: ctx.config.streamIdleTimeoutSeconds * 1000,
      pingIntervalMs:
        !isCollected && ctx.options.bool('general_setting.ping_interval_enabled')
          ? ctx.options.number('general_setting.ping_interval_seconds') * 1000
          : 0,
      abort: () => rc.abort(),
      startedAt: rc.startedAt,
      countPromptTokens: rc.countPromptTokens,
      start: () => {
        if (!isCollected) rc.exchange.startStream(sseHeaders);
      },
      acceptLanguage: rc.exchange.headers['accept-language'],
    },
    () => waiter.resume(),
  );
  void pump(responseOf(rc).body, driver, waiter);
  const outcome = await driver.done;
  if (!outcome.isStarted || (isCollected && outcome.error !== null)) {
    // Nothing reached the client: an UpstreamError goes back to the failover loop (another channel
    // may serve the request; the hold stays until the request ends).
    if (rc.signal.aborted && !(outcome.error instanceof RelayError)) throw relayErrors.clientClosed();
    if (outcome.error instanceof RelayError) throw outcome.error;
    throw new UpstreamError(0, `读取上游响应失败：${(outcome.error as Error | null)?.message ?? ''}`, 'upstream_read_failed', '');
  }
  return {
    usage: outcome.usage,
    isStream: !isCollected,
    frtMs: outcome.frtMs,
    isComplete: outcome.error === null && !outcome.isClientGone && !outcome.isIdleTimeout,
  };
}

/**
 * An answer's body, refused past maxAnswerBytes or when the instance's answer budget is full (the rest
 * is not read: the connection is closed). What it took of the budget is given back once it is read.
 */
async function readWhole(body: AsyncIterable<Buffer>, budget: BodyBudget): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      if (size + chunk.length > maxAnswerBytes) throw answerTooLarge();
      if (!budget.take(chunk.length)) throw relayErrors.answersBusy();
      size += chunk.length;
      chunks.push(chunk);
    }
  } finally {
    budget.give(size);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** Reads a whole JSON answer; 499 when the client left, 502 when the upstream broke. */
export async function readAnswer(rc: ResponseContext): Promise<{ bytes: Buffer; json: Record<string, unknown> | null }> {
  let bytes: Buffer;
  try {
    bytes = await readWhole(responseOf(rc).body, rc.relay.answerBudget);
  } catch (error) {
    rc.detach();
    if (rc.signal.aborted) throw relayErrors.clientClosed();
    // Past maxAnswerBytes: the channel's failure, for the failover loop; answers busy: the instance's.
    if (error instanceof UpstreamError || error instanceof RelayError) throw error;
    rc.relay.log.warn({ err: error }, 'upstream answer could not be read');
    throw new RelayError(502, 'upstream_read_failed', '读取上游响应失败', true, 'upstream_error');
  }
  rc.detach();
  let json: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    json = null;
  }
  return { bytes, json };
}

export interface JsonAnswer {
  /** Client body: an object (serialized here) or bytes passed through unchanged. */
  body: unknown;
  usage: Usage;
  /** Billed calls for per-call prices (Cohere rerank search units). */
  calls?: number;
}

/**
 * Reads a non-stream answer and makes its client body; it is sent once billed. `answer` may throw
 * (then nothing is billed): an UpstreamError (an error answered with HTTP 200) goes back to the
 * failover loop while the hold stays for another channel.
 */
export async function sendJsonAnswer(
  rc: ResponseContext,
  answer: (read: { bytes: Buffer; json: Record<string, unknown> | null }) => JsonAnswer,
): Promise<Delivery> {
  const read = await readAnswer(rc);
  let result: JsonAnswer;
  try {
    result = answer(read);
  } catch (error) {
    if (error instanceof RelayError) throw error;
    rc.relay.log.warn({ err: error }, 'upstream answer could not be read');
    throw new RelayError(502, 'upstream_bad_response', '上游响应无法解析', true, 'upstream_error');
  }
  return {
    usage: result.usage,
    calls: result.calls,
    isStream: false,
    frtMs: Date.now() - rc.startedAt,
    answer: result.body,
    send: () => {
      const isBytes = Buffer.isBuffer(result.body);
      const contentType = isBytes
        ? String(responseOf(rc).headers['content-type'] ?? 'application/json')
        : 'application/json; charset=utf-8';
      rc.exchange.send(200, contentType, isBytes ? (result.body as Buffer) : JSON.stringify(result.body));
    },
  };
}
