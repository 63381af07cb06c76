import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { UpstreamResponse } from '../providers/types.js';
import type { Usage } from '../billing/quota.js';
import { StreamingTokenCounter } from '../billing/token-count.js';
import type { StreamEvent } from '../providers/types.js';
import type { FramingDecoder } from './framing.js';
import { IdleTimer } from './idle-timer.js';

/** What one upstream event (or the end of the stream) gives the client and the bill. */
export interface EventStep {
  output: string;
  /** Completion text the event added (counted only when the upstream reports no usage). */
  text: string;
  /** Usage known after the event (cumulative; the last non-null value wins). */
  usage: Usage | null;
}

/**
 * Per-request handling of a converted or passed-through stream: `onEvent` per decoded upstream
 * event (it may throw an UpstreamError for an in-stream error), `end` once the upstream is done
 * (flushes the transform), `close` the closing frames with the final usage.
 */
export interface EventHandler {
  onEvent(event: StreamEvent): EventStep;
  end(): EventStep;
  close(usage: Usage): string;
  /**
   * The closing frames when the stream breaks after the first byte (in-stream error, upstream gone,
   * idle timeout): the error in the client's format (then whatever ends that format's stream).
   */
  fail?(error: unknown, usage: Usage): string;
}

export interface EventStreamOptions {
  upstream: UpstreamResponse;
  out: ServerResponse;
  /** Sends the response head; called once, right before the first byte goes out. */
  start(): void;
  decoder: FramingDecoder;
  handler: EventHandler;
  idleTimeoutMs: number;
  pingIntervalMs: number;
  abort(reason: string): void;
  startedAt: number;
  countPromptTokens(): number;
}

export interface EventStreamOutcome {
  usage: Usage;
  frtMs: number;
  /** False when nothing was sent: the caller answers `error` as a normal error response. */
  isStarted: boolean;
  error: unknown;
}

/**
 * The stream pipeline for upstreams that are not passed through as OpenAI SSE (converted providers,
 * native pass-through, inbound formats): upstream bytes → framing decoder → the handler's
 * per-provider transform → client frames, written with backpressure. Same rules as the SSE relay (stream.ts):
 * idle timeout, optional pings, client disconnect aborts the upstream, usage totalled as events
 * pass and counted from the streamed text only when the upstream reports none. The head is sent
 * lazily, so an upstream error before the first byte is still answered as an error.
 */
const maxHeldChars = 16 * 1024;

export async function pipeEvents(options: EventStreamOptions): Promise<EventStreamOutcome> {
  const { out, handler } = options;
  const counter = new StreamingTokenCounter();
  let usage: Usage | null = null;
  let frtMs = 0;
  let isStarted = false;
  let error: unknown = null;

  // Frames before the first completion text (role chunk, message_start, …) are held back, so an
  // error right after them still counts as "before the first byte" and the request can fail over.
  let held = '';
  let hasContent = false;
  const take = (step: EventStep): string => {
    if (step.usage) usage = step.usage;
    if (step.text) {
      counter.push(step.text);
      hasContent = true;
    }
    return step.output;
  };
  const write = async (produced: string, isEnd = false) => {
    held += produced;
    if (!isEnd && !hasContent && held.length < maxHeldChars) return;
    const text = held;
    held = '';
    if (!text || out.destroyed || out.writableEnded) return;
    if (!isStarted) {
      isStarted = true;
      frtMs = Date.now() - options.startedAt;
      options.start();
    }
    if (!out.write(text)) {
      // Waiting on a slow client is not an idle upstream.
      idle.pause();
      await Promise.race([once(out, 'drain'), once(out, 'close')]);
      idle.resume();
    }
  };
  /** Runs the handler over decoded events and writes their output; what came before an in-stream error still goes out. */
  const feed = async (events: Iterable<StreamEvent>, end?: () => string) => {
    let output = '';
    try {
      for (const event of events) output += take(handler.onEvent(event));
      if (end) output += end();
    } catch (caught) {
      await write(output);
      throw caught;
    }
    await write(output, end !== undefined);
  };
  const onClose = () => {
    if (!out.writableFinished) options.abort('client closed');
  };
  out.on('close', onClose);
  const idle = new IdleTimer(options.idleTimeoutMs, () => options.abort('stream idle timeout'));
  const ping = options.pingIntervalMs > 0
    ? setInterval(() => {
      if (isStarted && !out.writableEnded) out.write(': PING\n\n');
    }, options.pingIntervalMs)
    : null;
  try {
    for await (const piece of options.upstream.body) {
      idle.touch();
      await feed(options.decoder.push(piece as Buffer));
    }
    await feed(options.decoder.finish(), () => take(handler.end()));
  } catch (caught) {
    // Aborted (client gone, idle), a broken upstream or an in-stream error: bill what was produced.
    error = caught;
  } finally {
    idle.stop();
    if (ping) clearInterval(ping);
    out.off('close', onClose);
  }
  const final: Usage = usage ?? { promptTokens: options.countPromptTokens(), completionTokens: counter.finish(), cachedTokens: 0 };
  if (!isStarted && error === null && !out.destroyed) {
    isStarted = true;
    frtMs = Date.now() - options.startedAt;
    options.start();
  }
  if (isStarted && !out.destroyed && !out.writableEnded) out.end(error !== null && handler.fail ? handler.fail(error, final) : handler.close(final));
  return { usage: final, frtMs, isStarted, error };
}
