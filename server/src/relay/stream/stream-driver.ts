import type { Usage } from '../billing/quota.js';
import { languageOf } from '../../lib/i18n/index.js';
import { RelayError, UpstreamError } from '../errors.js';
import { failureOf } from './chunk-handlers.js';
import { IdleTimer } from './idle-timer.js';
import type { AnswerSink } from '../upstream/upstream-answer.js';

/** Where the driver writes: the client's response, or a discarding writable for collected answers. */
export interface StreamOut {
  readonly writableEnded: boolean;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
  write(chunk: string | Buffer): boolean;
  end(chunk?: string): unknown;
  on(event: 'close', listener: () => void): unknown;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'close' | 'drain', listener: () => void): unknown;
}

/**
 * One stream's format work, between the upstream's bytes and the client's: decode (SSE lines, a
 * provider's framing), transform (the provider's chunk transform, a conversion to another API's
 * events) and encode. The OpenAI pass-through is one codec (a read-only transform: lines copied),
 * every converted or inbound format another (openai-sse-codec.ts, event-codec.ts).
 */
export interface StreamCodec {
  /**
   * Client output for one upstream piece. An error that ends the stream (an in-stream error event;
   * before the first byte, one the caller may fail over on) is left in `failure`, with the output
   * produced before it returned.
   */
  push(piece: Buffer, isStarted: boolean): string | Buffer;
  /** The upstream ended normally: what is left to write (a final partial line, a flush). */
  end(): string;
  /** Set by push/end when the stream fails; the driver stops there. */
  failure: unknown;
  /**
   * Whether output so far carries the answer's content. Codecs that hold their opening frames
   * (role chunk, message_start) until content set `holdsUntilContent`: an error right after them
   * still counts as before the first byte, so the request can fail over.
   */
  readonly holdsUntilContent: boolean;
  readonly hasContent: boolean;
  /** The answer is complete before the upstream ended: the driver ends the stream and stops reading. */
  readonly isAnswered?: boolean;
  /**
   * The answer is complete, and the upstream is read on, unsent, for the usage it reports (a stop
   * sequence the gateway applied matched). A failure, an idle upstream or a gone client after this
   * ends the stream as answered, billed what was produced.
   */
  readonly isComplete?: boolean;
  /**
   * What to bill. A stream that ended normally bills the upstream's usage (or the counted prompt
   * and text when it sent none); one that ended early (client gone, idle, broken) bills at least the
   * text it streamed, whatever partial usage the upstream had sent.
   */
  billedUsage(isComplete: boolean, countPromptTokens: () => number): Usage;
  /** The closing frames: the end of a normal stream, or the error in the client's format. */
  close(usage: Usage, error: unknown): string;
  /** Time to the first content, if the codec tracks it (else the driver's first write). */
  readonly frtMs?: number;
}

export interface StreamDriverOptions {
  out: StreamOut;
  codec: StreamCodec;
  idleTimeoutMs: number;
  pingIntervalMs: number;
  /** Aborts the upstream request (client gone or idle). */
  abort(reason: string): void;
  startedAt: number;
  countPromptTokens(): number;
  /**
   * Writes the answer's head, right before the first byte goes out. A stream that fails before
   * its first byte writes nothing: `done` gives `isStarted: false` and the error (failover).
   * Without it the head is already out.
   */
  start?(): void;
  /** Stops this upstream answer (a failure before the first byte) without aborting the client's call. */
  cancel?(): void;
  /** Nothing reaches the client (a collected answer): the client's own connection is watched here. */
  clientOut?: StreamOut;
  /** The client's Accept-Language: an error that ends a started stream is told in its language (read only then). */
  acceptLanguage?: string;
}

export interface StreamDriverOutcome {
  usage: Usage;
  frtMs: number;
  isStarted: boolean;
  isClientGone: boolean;
  isIdleTimeout: boolean;
  /** Why the stream ended early; null when it ended normally. */
  error: unknown;
}

/**
 * An upstream event the codec could not read (a shape no provider sends): the stream fails as the
 * channel's unreadable answer (before the first byte another channel may serve the request).
 */
const unreadable = (error: unknown) =>
  error instanceof UpstreamError
    ? error
    : new UpstreamError(0, `上游流式响应无法解析：${error instanceof Error ? error.message : String(error)}`, 'upstream_unreadable', '');

/** Opening frames held back (codecs that hold until content) beyond which they are written anyway. */
const maxHeldChars = 16 * 1024;
const nonBlank = /\S/;

/** Output with nothing but blank lines and spaces (a Buffer is the codec's copy of ASCII upstream lines). */
function isBlank(output: string | Buffer): boolean {
  if (typeof output === 'string') return !nonBlank.test(output);
  for (const byte of output) if (byte !== 10 && byte !== 13 && byte !== 32 && byte !== 9) return false;
  return true;
}

/**
 * The one stream driver, push-driven (`AnswerSink`: the upstream answer calls `data`, `end`,
 * `error`; `data` returning false pauses it until `resume`). Whatever the format, it owns the
 * rules: the idle timeout (not while waiting on a slow client), optional pings, a client that goes
 * away aborts the upstream, backpressure, the head sent lazily so a failure
 * before the first byte is still an error answer (and another channel may serve the request), and
 * the outcome to bill.
 */
export class StreamDriver implements AnswerSink {
  readonly done: Promise<StreamDriverOutcome>;
  private resolveDone!: (outcome: StreamDriverOutcome) => void;
  private isStarted = false;
  private isFinished = false;
  private isClientGone = false;
  private isIdleTimeout = false;
  private isWaitingForDrain = false;
  /** Ended by the codec before the upstream did: billed as produced (at least the streamed text). */
  private isCutShort = false;
  private frtMs = 0;
  private held = '';
  private readonly idle: IdleTimer;
  private readonly ping: NodeJS.Timeout | null;
  private readonly watched: StreamOut;

  constructor(
    private readonly options: StreamDriverOptions,
    private readonly resume: () => void,
  ) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.isStarted = options.start === undefined;
    this.watched = options.clientOut ?? options.out;
    this.watched.on('close', this.onClose);
    this.idle = new IdleTimer(options.idleTimeoutMs, this.onIdle);
    const out = options.out;
    this.ping =
      options.pingIntervalMs > 0
        ? setInterval(() => {
            if (this.isStarted && !out.writableEnded) out.write(': PING\n\n');
          }, options.pingIntervalMs)
        : null;
  }

  /** The stream has ended (normally, broken, or failed before its first byte). */
  get isDone(): boolean {
    return this.isFinished;
  }

  private readonly onClose = (): void => {
    if (!this.watched.writableFinished) {
      this.isClientGone = true;
      this.options.abort('client closed');
      // A reader paused for the client's drain goes on, to meet the abort.
      if (this.isWaitingForDrain) {
        this.isWaitingForDrain = false;
        this.options.out.off('drain', this.onDrain);
        this.resume();
      }
    }
  };

  /** The upstream sent nothing for idleTimeoutMs while the client kept up (idle-timer.ts). */
  private readonly onIdle = (): void => {
    this.isIdleTimeout = true;
    this.options.abort('stream idle timeout');
  };

  private readonly onDrain = (): void => {
    this.isWaitingForDrain = false;
    this.idle.resume();
    this.resume();
  };

  data(piece: Buffer): boolean {
    if (this.isFinished) return true;
    this.idle.touch();
    const { codec } = this.options;
    let output: string | Buffer;
    try {
      output = codec.push(piece, this.isStarted);
    } catch (error) {
      this.finish(unreadable(error));
      return true;
    }
    if (codec.failure !== null && codec.isComplete === true) {
      this.write(output, true);
      this.isCutShort = true;
      this.finish(null);
      return true;
    }
    if (codec.failure !== null) {
      // What came before the failure still goes out (unless held back: then the request may fail over).
      const written = this.write(output, false);
      if (!this.isStarted) this.options.cancel?.();
      this.finish(codec.failure);
      return written;
    }
    if (codec.isAnswered === true) {
      const written = this.write(output, true);
      this.isCutShort = true;
      this.finish(null);
      return written;
    }
    return this.write(output, false);
  }

  end(): void {
    if (this.isFinished) return;
    const { codec } = this.options;
    let output: string;
    try {
      output = codec.end();
    } catch (error) {
      this.finish(unreadable(error));
      return;
    }
    const isAnswered = codec.failure === null || codec.isComplete === true;
    this.write(output, isAnswered);
    if (codec.failure !== null && codec.isComplete === true) this.isCutShort = true;
    this.finish(isAnswered ? null : codec.failure);
  }

  error(error: Error): void {
    if (this.isFinished) return;
    if (this.options.codec.isComplete === true) {
      // The answer was whole: the upstream, read on for its usage, failed or went idle, or the client left.
      this.isCutShort = true;
      this.finish(null);
      return;
    }
    // Aborted (client gone, idle) or the upstream broke mid-stream: bill what was produced, and
    // tell the client in its format.
    this.finish(this.isIdleTimeout ? new RelayError(504, 'stream_idle_timeout', '上游流式响应超时') : error);
  }

  /** Writes output (held back while the codec holds its opening frames); false when the client's buffer is full. */
  private write(produced: string | Buffer, isEnd: boolean): boolean {
    const { out, codec } = this.options;
    let text = produced;
    if (!this.isStarted && codec.holdsUntilContent) {
      this.held += typeof produced === 'string' ? produced : produced.toString();
      if (!isEnd && !codec.hasContent && this.held.length < maxHeldChars) return true;
      text = this.held;
      this.held = '';
    }
    if (text.length === 0 || out.writableEnded || out.destroyed) return true;
    if (!this.isStarted) {
      // Blank lines and dropped lines alone do not start the answer.
      if (isBlank(text)) return true;
      this.begin();
    }
    // No cork: on Node 22 and 24 a corked ServerResponse keeps chunked writes in a buffer of its own,
    // where write() no longer reports the client's backpressure (a fast upstream to a slow client then
    // piled the whole stream up in memory) and end() overtakes them.
    if (out.write(text)) return true;
    if (!this.isWaitingForDrain) {
      this.isWaitingForDrain = true;
      this.idle.pause();
      out.once('drain', this.onDrain);
    }
    return false;
  }

  private begin(): void {
    if (this.isStarted) return;
    this.isStarted = true;
    this.frtMs = Date.now() - this.options.startedAt;
    this.options.start!();
  }

  /** A stream's failure as the client is told it: classified and redacted (failureOf), in its language. */
  private toldError(error: unknown): RelayError {
    const { status, message, code } = failureOf(error);
    return new RelayError(status, code, message).inLanguage(languageOf(this.options.acceptLanguage));
  }

  /**
   * What the stream is billed. Should the codec fail to count it (an event it could not read), the
   * prompt is billed and the stream still ends: never a lost bill or a client left waiting.
   */
  private billedUsage(streamError: unknown): Usage {
    const { codec, countPromptTokens } = this.options;
    try {
      return codec.billedUsage(streamError === null && !this.isCutShort, countPromptTokens);
    } catch {
      try {
        return { promptTokens: countPromptTokens(), completionTokens: 0, cachedTokens: 0 };
      } catch {
        return { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
      }
    }
  }

  private finish(streamError: unknown): void {
    this.isFinished = true;
    this.idle.stop();
    if (this.ping) clearInterval(this.ping);
    const { out, codec } = this.options;
    this.watched.off('close', this.onClose);
    if (this.isWaitingForDrain) out.off('drain', this.onDrain);
    if (!this.isStarted && streamError !== null && !this.isClientGone && !this.isIdleTimeout) {
      // The upstream failed before anything reached the client: nothing is billed; the caller answers
      // the error or fails over. (A client gone or an idle upstream is billed: at least the prompt.)
      this.resolveDone({
        usage: { promptTokens: 0, completionTokens: 0, cachedTokens: 0 },
        frtMs: 0,
        isStarted: false,
        isClientGone: false,
        isIdleTimeout: false,
        error: streamError,
      });
      return;
    }
    const usage = this.billedUsage(streamError);
    if (!out.destroyed && !out.writableEnded) {
      if (!this.isStarted && this.held.length > 0) {
        this.begin();
        out.write(this.held);
      }
      this.begin();
      let closing = '';
      try {
        closing = codec.close(usage, streamError === null ? null : this.toldError(streamError));
      } catch {
        // The client still gets the end of its stream.
      }
      out.end(closing);
    }
    this.resolveDone({
      usage,
      frtMs: codec.frtMs || this.frtMs,
      isStarted: this.isStarted,
      isClientGone: this.isClientGone,
      isIdleTimeout: this.isIdleTimeout,
      error: streamError,
    });
  }
}

/**
 * Feeds an upstream body that is read by iteration (responders' undici bodies, transports) into the
 * driver, honouring its backpressure; stops reading (the body is destroyed) once the driver is done.
 */
export async function pump(body: AsyncIterable<Buffer>, driver: StreamDriver, waiter: { resume: () => void }): Promise<void> {
  try {
    for await (const piece of body) {
      if (!driver.data(piece as Buffer)) await new Promise<void>((resolve) => (waiter.resume = resolve));
      if (driver.isDone) return;
    }
    driver.end();
  } catch (error) {
    driver.error(error as Error);
  }
}
