import type { Dispatcher } from 'undici';
import type { BodyBudget } from '../../http/request-body.js';
import { UpstreamError, relayErrors } from '../errors.js';

/** Where a streamed answer goes, chunk by chunk (the stream driver of `stream-driver.ts`). */
export interface AnswerSink {
  /** One piece of the body; false pauses the upstream until the sink calls the resume it was given. */
  data(chunk: Buffer): boolean;
  end(): void;
  error(error: Error): void;
}

/** The head of an answer and, unless it streams, its whole body. */
export interface AnswerHead {
  statusCode: number;
  contentType: string;
  /** The body of a buffered answer (capped at `maxErrorBody` for error statuses); null for a stream. */
  body: Buffer | null;
  /** `retry-after` and `retry-after-ms` of a 429 or 503 (read only for those). */
  retryAfter?: Record<string, string>;
}

/** The part of the call signal the upstream call listens to (`CallSignal` of relay-call.ts). */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export const maxErrorBody = 64 * 1024;
/**
 * The largest whole (non-stream) answer read from an upstream: 256 MiB, above any answer a model API
 * gives (2,048 embeddings of 3,072 dimensions are about 125 MB of JSON). Past it the answer is the
 * channel's failure, so an upstream cannot make the gateway buffer without bound.
 */
export const maxAnswerBytes = 256 * 1024 * 1024;

/** The failure of an answer past maxAnswerBytes (the channel's: another may serve the call). */
export function answerTooLarge(): UpstreamError {
  return new UpstreamError(0, `上游响应超过 ${maxAnswerBytes / 1024 / 1024} MiB`, 'upstream_answer_too_large', '');
}
/** Stream bytes held before the sink is attached, beyond which the upstream is paused. */
const maxPending = 1024 * 1024;

/**
 * One upstream call on undici's dispatch API, without `undici.request`'s Readable body and its
 * promise and stream-event layers (the per-request cost profiles showed). A buffered answer arrives
 * as one Buffer; a 2xx answer to a streaming request is handed to a sink as it arrives, with
 * backpressure (the sink returns false, then calls resume). `head` resolves when the answer's head
 * is in (stream) or its whole body (buffered), and rejects on a connection error or abort before.
 */
export class UpstreamAnswer implements Dispatcher.DispatchHandler {
  readonly head: Promise<AnswerHead>;
  private resolveHead!: (head: AnswerHead) => void;
  private rejectHead!: (error: Error) => void;
  private statusCode = 0;
  private contentType = '';
  private retryAfter: Record<string, string> | undefined;
  private chunks: Buffer[] = [];
  private size = 0;
  private isStreaming = false;
  private isHeadSettled = false;
  private sink: AnswerSink | null = null;
  /** A stream's end or error that came before the sink was attached. */
  private ended: { error: Error | null } | null = null;
  private abortUpstream: ((reason?: Error) => void) | null = null;
  private resumeUpstream: (() => void) | null = null;
  private isPaused = false;
  /** Bytes of a whole answer taken from the answer budget, given back once it is read or has failed. */
  private taken = 0;
  private readonly onAbort = (): void => {
    const reason = this.signal.reason instanceof Error ? this.signal.reason : new Error(String(this.signal.reason));
    this.abortUpstream?.(reason);
  };

  /** `budget`: what whole answers being read may hold at once; an answer that would pass it is dropped (503 busy). */
  constructor(
    private readonly signal: AbortSource,
    private readonly isStreamWanted: boolean,
    private readonly budget: BodyBudget | null = null,
  ) {
    this.head = new Promise<AnswerHead>((resolve, reject) => {
      this.resolveHead = resolve;
      this.rejectHead = reject;
    });
    signal.addEventListener('abort', this.onAbort);
  }

  /** Attaches the sink of a streamed answer; what arrived before is given to it first. */
  stream(sink: AnswerSink): void {
    this.sink = sink;
    const pending = this.chunks;
    this.chunks = [];
    this.size = 0;
    let isFlowing = true;
    for (const chunk of pending) isFlowing = sink.data(chunk) && isFlowing;
    if (this.ended) {
      if (this.ended.error) sink.error(this.ended.error);
      else sink.end();
    } else if (isFlowing && this.isPaused) {
      this.resume();
    } else if (!isFlowing) {
      this.isPaused = true;
    }
  }

  /** Drops this answer (its connection is closed) without touching the call's signal. */
  cancel(): void {
    this.abortUpstream?.(new Error('upstream answer dropped'));
  }

  /** Continues a paused stream (the sink's writes drained). */
  resume(): void {
    if (!this.isPaused) return;
    this.isPaused = false;
    this.resumeUpstream?.();
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortUpstream = abort;
    if (this.signal.aborted) this.onAbort();
  }

  onHeaders(statusCode: number, headers: Buffer[], resume: () => void): boolean {
    // An informational head (103 Early Hints) comes before the real one, as in undici.request.
    if (statusCode < 200) return true;
    this.statusCode = statusCode;
    this.resumeUpstream = resume;
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i]!;
      if (name.length === 12 && name.toString('latin1').toLowerCase() === 'content-type') {
        this.contentType = headers[i + 1]!.toString('latin1');
        if (statusCode !== 429 && statusCode !== 503) break;
      } else if ((statusCode === 429 || statusCode === 503) && (name.length === 11 || name.length === 14)) {
        const lower = name.toString('latin1').toLowerCase();
        if (lower === 'retry-after' || lower === 'retry-after-ms') (this.retryAfter ??= {})[lower] = headers[i + 1]!.toString('latin1');
      }
    }
    if (this.isStreamWanted && statusCode < 300) {
      this.isStreaming = true;
      this.settleHead(null);
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.sink) {
      if (this.sink.data(chunk)) return true;
      this.isPaused = true;
      return false;
    }
    const isError = this.statusCode < 200 || this.statusCode >= 300;
    if (isError && this.size >= maxErrorBody) return true;
    if (!this.isStreaming && this.size + chunk.length > maxAnswerBytes) {
      this.chunks = [];
      this.abortUpstream?.(answerTooLarge());
      return false;
    }
    if (!this.isStreaming && !isError && this.budget !== null) {
      if (!this.budget.take(chunk.length)) {
        this.chunks = [];
        this.giveBack();
        this.abortUpstream?.(relayErrors.answersBusy());
        return false;
      }
      this.taken += chunk.length;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.isStreaming && this.size > maxPending) {
      this.isPaused = true;
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.giveBack();
    if (!this.isStreaming) {
      const chunks = this.chunks;
      this.chunks = [];
      let body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      if (this.statusCode < 200 || this.statusCode >= 300) body = body.subarray(0, maxErrorBody);
      this.settleHead(body);
    } else if (this.sink) {
      this.sink.end();
    } else {
      this.ended = { error: null };
    }
  }

  onError(error: Error): void {
    this.signal.removeEventListener('abort', this.onAbort);
    this.giveBack();
    if (!this.isHeadSettled) {
      this.isHeadSettled = true;
      this.rejectHead(error);
    } else if (this.sink) {
      this.sink.error(error);
    } else {
      this.ended = { error };
    }
  }

  private giveBack(): void {
    if (this.taken === 0) return;
    this.budget!.give(this.taken);
    this.taken = 0;
  }

  private settleHead(body: Buffer | null): void {
    if (this.isHeadSettled) return;
    this.isHeadSettled = true;
    this.resolveHead({ statusCode: this.statusCode, contentType: this.contentType, body, retryAfter: this.retryAfter });
  }
}
