import type { ServerResponse } from 'node:http';
import type { Usage } from '../../relay/billing/quota.js';
import { StreamingTokenCounter } from '../billing/token-count.js';
import { RelayError } from '../errors.js';
import type { ChunkTransform } from '../providers/types.js';
import { streamErrorFrame } from './chunk-handlers.js';
import type { AnswerSink } from './upstream-answer.js';

export interface StreamOptions {
  out: ServerResponse;
  transform: ChunkTransform;
  /** The client asked for stream_options.include_usage: forward (or synthesize) the usage chunk. */
  clientWantsUsage: boolean;
  idleTimeoutMs: number;
  pingIntervalMs: number;
  /** Aborts the upstream request (client gone or idle). */
  abort: (reason: string) => void;
  startedAt: number;
  model: string;
  /** Tokenizes the request's prompt; only called when the upstream reported no usage. */
  countPromptTokens: () => number;
}

export interface StreamOutcome {
  /** Upstream usage, or prompt and streamed text counted here when the upstream sent none. */
  usage: Usage;
  isUsageCounted: boolean;
  frtMs: number;
  isClientGone: boolean;
  isIdleTimeout: boolean;
}

const done = 'data: [DONE]\n\n';

/** Unparsed event text kept for counting (read-only transforms) before it is counted in one go. */
const maxDeferredChars = 64 * 1024;

/**
 * The one streaming pipeline of OpenAI-wire answers, driven by the upstream (`AnswerSink`): splits
 * upstream SSE into events, runs the provider's chunk transform on each data event, totals usage as
 * chunks pass, and writes to the client with backpressure (`data` returns false while the client's
 * buffer is full; `resume` is called on its 'drain'). `done` resolves when the stream has ended,
 * broken or been aborted, with the usage to bill.
 *
 * Fast path for read-only transforms (OpenAI wire): an event without `"usage"` in it is passed on
 * unparsed; its text is kept (up to maxDeferredChars, then counted) and only parsed and counted if the
 * stream ends without usage. With upstream usage, only the usage event is parsed and no tokenizer runs.
 * Memory per stream is bounded by one upstream read, the deferred text and the counter's small buffer.
 */
export class SseRelay implements AnswerSink {
  readonly done: Promise<StreamOutcome>;
  private resolveDone!: (outcome: StreamOutcome) => void;
  private readonly decoder = new TextDecoder();
  private readonly counter = new StreamingTokenCounter();
  private readonly isReadOnly: boolean;
  private carry = '';
  private usage: Usage | null = null;
  private frtMs = 0;
  private isClientGone = false;
  private isIdleTimeout = false;
  private isLastUsageChunkSeen = false;
  private isFinished = false;
  private lastId = '';
  private deferred: string[] = [];
  private deferredChars = 0;
  /** Latest passed-through event, parsed for its id only if a usage chunk must be synthesized. */
  private lastUnparsed: string | null = null;
  private readonly idle: NodeJS.Timeout;
  private readonly ping: NodeJS.Timeout | null;
  private isWaitingForDrain = false;

  constructor(private readonly options: StreamOptions, private readonly resume: () => void) {
    this.isReadOnly = options.transform.isReadOnly === true;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    const out = options.out;
    out.on('close', this.onClose);
    this.idle = setTimeout(this.onIdle, options.idleTimeoutMs);
    this.ping = options.pingIntervalMs > 0
      ? setInterval(() => {
        if (!out.writableEnded) out.write(': PING\n\n');
      }, options.pingIntervalMs)
      : null;
  }

  private readonly onClose = (): void => {
    if (!this.options.out.writableFinished) {
      this.isClientGone = true;
      this.options.abort('client closed');
    }
  };

  private readonly onIdle = (): void => {
    this.isIdleTimeout = true;
    this.options.abort('stream idle timeout');
  };

  private readonly onDrain = (): void => {
    this.isWaitingForDrain = false;
    this.resume();
  };

  data(piece: Buffer): boolean {
    if (this.isFinished) return true;
    this.idle.refresh();
    const text = this.decoder.decode(piece, { stream: true });
    const carry = this.carry.length === 0 ? text : this.carry + text;
    let output = '';
    let start = 0;
    let newline = carry.indexOf('\n', start);
    while (newline !== -1) {
      const end = newline > start && carry.charCodeAt(newline - 1) === 13 /* \r */ ? newline - 1 : newline;
      if (end > start && carry.charCodeAt(start) !== 58 /* ':' comment */) output += this.handleLine(carry.slice(start, end));
      start = newline + 1;
      newline = carry.indexOf('\n', start);
    }
    this.carry = start === 0 ? carry : carry.slice(start);
    const out = this.options.out;
    if (output && !out.writableEnded && !out.destroyed && !out.write(output)) {
      if (!this.isWaitingForDrain) {
        this.isWaitingForDrain = true;
        out.once('drain', this.onDrain);
      }
      return false;
    }
    return true;
  }

  end(): void {
    if (this.isFinished) return;
    const rest = this.carry.trim();
    if (rest) {
      const output = this.handleLine(rest);
      if (output && !this.options.out.destroyed) this.options.out.write(output);
    }
    this.finish(null);
  }

  error(error: Error): void {
    if (this.isFinished) return;
    // Aborted (client gone, idle) or the upstream broke mid-stream: bill what was produced, and
    // tell the client with an error event before [DONE].
    this.finish(this.isIdleTimeout ? new RelayError(504, 'stream_idle_timeout', '上游流式响应超时') : error);
  }

  private countDeferred(): void {
    for (const data of this.deferred) {
      let chunk: Record<string, unknown>;
      try {
        chunk = JSON.parse(data) as Record<string, unknown>;
      } catch {
        continue;
      }
      const verdict = this.options.transform.onChunk(chunk);
      if (verdict.text) this.counter.push(verdict.text);
    }
    this.deferred = [];
    this.deferredChars = 0;
  }

  private defer(data: string): void {
    this.deferred.push(data);
    this.deferredChars += data.length;
    if (this.deferredChars > maxDeferredChars) this.countDeferred();
  }

  private handleLine(line: string): string {
    if (!line.startsWith('data:')) return '';
    const hasSpace = line.charCodeAt(5) === 32;
    const data = hasSpace ? line.slice(6) : line.slice(5);
    if (data === '[DONE]') return '';
    if (this.isReadOnly && !data.includes('"usage"')) {
      if (this.usage === null) this.defer(data);
      this.lastUnparsed = data;
      if (this.frtMs === 0) this.frtMs = Date.now() - this.options.startedAt;
      return hasSpace ? `${line}\n\n` : `data: ${data}\n\n`;
    }
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return `data: ${data}\n\n`;
    }
    const verdict = this.options.transform.onChunk(chunk);
    if (typeof chunk.id === 'string') {
      this.lastId = chunk.id;
      this.lastUnparsed = null;
    }
    if (verdict.usage) {
      this.usage = verdict.usage;
      this.deferred = [];
      this.deferredChars = 0;
      if (verdict.isUsageOnly) {
        this.isLastUsageChunkSeen = true;
        if (!this.options.clientWantsUsage) return '';
      }
    } else if (verdict.text && this.usage === null) {
      if (this.isReadOnly) this.defer(data);
      else this.counter.push(verdict.text);
    }
    if (this.frtMs === 0) this.frtMs = Date.now() - this.options.startedAt;
    return `data: ${verdict.isModified ? JSON.stringify(chunk) : data}\n\n`;
  }

  private finish(streamError: unknown): void {
    this.isFinished = true;
    clearTimeout(this.idle);
    if (this.ping) clearInterval(this.ping);
    const { out } = this.options;
    out.off('close', this.onClose);
    if (this.isWaitingForDrain) out.off('drain', this.onDrain);
    const isUsageCounted = this.usage === null;
    let final: Usage;
    if (this.usage === null) {
      this.countDeferred();
      final = { promptTokens: this.options.countPromptTokens(), completionTokens: this.counter.finish(), cachedTokens: 0 };
    } else {
      final = this.usage;
    }
    if (!out.destroyed && !out.writableEnded) {
      if (this.options.clientWantsUsage && !this.isLastUsageChunkSeen) out.write(this.synthesizedUsage(final));
      out.end(streamError !== null ? streamErrorFrame('openai', streamError) + done : done);
    }
    this.resolveDone({ usage: final, isUsageCounted, frtMs: this.frtMs, isClientGone: this.isClientGone, isIdleTimeout: this.isIdleTimeout });
  }

  private synthesizedUsage(final: Usage): string {
    if (this.lastUnparsed !== null) {
      try {
        const id = (JSON.parse(this.lastUnparsed) as Record<string, unknown>).id;
        if (typeof id === 'string') this.lastId = id;
      } catch {
        // keep the last id seen
      }
    }
    const synthesized = {
      id: this.lastId, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: this.options.model, choices: [],
      usage: { prompt_tokens: final.promptTokens, completion_tokens: final.completionTokens, total_tokens: final.promptTokens + final.completionTokens },
    };
    return `data: ${JSON.stringify(synthesized)}\n\n`;
  }
}

/** The same pipeline pulled from an async iterable of upstream pieces (tests, other sources). */
export async function pipeStream(options: StreamOptions & { upstream: { body: AsyncIterable<unknown> } }): Promise<StreamOutcome> {
  let resume: () => void = () => undefined;
  const relay = new SseRelay(options, () => resume());
  try {
    for await (const piece of options.upstream.body) {
      if (!relay.data(piece as Buffer)) await new Promise<void>((resolve) => (resume = resolve));
    }
    relay.end();
  } catch (error) {
    relay.error(error as Error);
  }
  return relay.done;
}
