import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import type { UpstreamResponse } from '../providers/types.js';
import type { AppContext } from '../../context.js';
import type { Usage } from '../billing/quota.js';
import { RelayError, UpstreamError, relayErrors } from '../errors.js';
import type { RelayState } from '../state.js';
import { pipeEvents, type EventHandler } from './event-stream.js';
import { sseHeaders, type RelayExchange } from './exchange.js';
import { createFramingDecoder, type DecoderFraming } from './framing.js';
import { releaseHold, settle, type Hold, type SettleInput } from './settle.js';

/** Everything a job's response handler needs to answer the client and settle the bill. */
export interface ResponseContext {
  ctx: AppContext;
  relay: RelayState;
  exchange: RelayExchange;
  response: UpstreamResponse;
  hold: Hold;
  /** Settle fields known before the answer (pricing, model, channel, timing). */
  base: Omit<SettleInput, 'usage' | 'isStream' | 'frtMs'>;
  /** Model the client asked for (answers carry it). */
  model: string;
  upstreamModel: string;
  signal: AbortSignal;
  abort(): void;
  /** Stops watching the client connection for the non-stream read. */
  detach(): void;
  startedAt: number;
  countPromptTokens(): number;
}

export type Responder = (rc: ResponseContext) => Promise<void>;

/**
 * Streams the answer through a framing decoder and an event handler, then settles. `isCollected`:
 * nothing is written to the client (the handler aggregates; the caller answers afterwards).
 */
export async function streamAnswer(rc: ResponseContext, framing: DecoderFraming, handler: EventHandler, mode: { isCollected?: boolean } = {}): Promise<void> {
  rc.detach();
  const out = mode.isCollected ? new Writable({ write: (_chunk, _encoding, done) => done() }) : rc.exchange.raw;
  const onClientClose = () => {
    if (!rc.exchange.raw.writableFinished) rc.abort();
  };
  if (mode.isCollected) rc.exchange.raw.once('close', onClientClose);
  const outcome = await pipeEvents({
    upstream: rc.response,
    out: out as ServerResponse,
    start: () => {
      if (mode.isCollected) return;
      rc.exchange.startStream(sseHeaders);
    },
    decoder: createFramingDecoder(framing),
    handler,
    idleTimeoutMs: rc.ctx.config.streamIdleTimeoutSeconds * 1000,
    pingIntervalMs: rc.ctx.options.bool('general_setting.ping_interval_enabled') ? rc.ctx.options.number('general_setting.ping_interval_seconds') * 1000 : 0,
    abort: () => rc.abort(),
    startedAt: rc.startedAt,
    countPromptTokens: rc.countPromptTokens,
  });
  if (mode.isCollected) rc.exchange.raw.off('close', onClientClose);
  if (!outcome.isStarted || (mode.isCollected && outcome.error !== null)) {
    // Nothing reached the client: an UpstreamError goes back to the failover loop (another channel
    // may serve the request; the hold stays until the request ends).
    if (rc.signal.aborted && !(outcome.error instanceof RelayError)) {
      releaseHold(rc.hold);
      throw relayErrors.clientClosed();
    }
    if (outcome.error instanceof UpstreamError) throw outcome.error;
    if (outcome.error instanceof RelayError) {
      releaseHold(rc.hold);
      throw outcome.error;
    }
    throw new UpstreamError(0, `读取上游响应失败：${(outcome.error as Error | null)?.message ?? ''}`, 'upstream_read_failed', '');
  }
  settle(rc.ctx, rc.relay, { ...rc.base, usage: outcome.usage, isStream: !mode.isCollected, frtMs: outcome.frtMs });
}

/** Reads a whole JSON answer; 499 when the client left, 502 when the upstream broke. */
export async function readAnswer(rc: ResponseContext): Promise<{ bytes: Buffer; json: Record<string, unknown> | null }> {
  let bytes: Buffer;
  try {
    bytes = Buffer.from(await rc.response.body.arrayBuffer());
  } catch (error) {
    rc.detach();
    releaseHold(rc.hold);
    if (rc.signal.aborted) throw relayErrors.clientClosed();
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

/** Settles a non-stream answer and sends it. `answer` may throw (then nothing is billed). */
export async function sendJsonAnswer(rc: ResponseContext, answer: (read: { bytes: Buffer; json: Record<string, unknown> | null }) => JsonAnswer): Promise<void> {
  const read = await readAnswer(rc);
  let result: JsonAnswer;
  try {
    result = answer(read);
  } catch (error) {
    // An UpstreamError (an error answered with HTTP 200) goes back to the failover loop: the hold
    // stays while another channel is tried, and the request releases it if it ends in failure.
    if (error instanceof UpstreamError) throw error;
    releaseHold(rc.hold);
    if (error instanceof RelayError) throw error;
    rc.relay.log.warn({ err: error }, 'upstream answer could not be read');
    throw new RelayError(502, 'upstream_bad_response', '上游响应无法解析', true, 'upstream_error');
  }
  settle(rc.ctx, rc.relay, { ...rc.base, calls: result.calls ?? rc.base.calls, usage: result.usage, isStream: false, frtMs: Date.now() - rc.startedAt });
  const isBytes = Buffer.isBuffer(result.body);
  const contentType = isBytes ? String(rc.response.headers['content-type'] ?? 'application/json') : 'application/json; charset=utf-8';
  rc.exchange.send(200, contentType, isBytes ? (result.body as Buffer) : JSON.stringify(result.body));
}
