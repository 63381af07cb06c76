import { isAscii } from 'node:buffer';
import type { Usage } from '../billing/quota.js';
import { StreamingTokenCounter } from '../billing/token-count.js';
import { languageOf } from '../../lib/i18n/index.js';
import { publicErrorOf, type UpstreamError } from '../errors.js';
import type { ChunkTransform } from '../providers/types.js';
import { errorOfChunk, streamErrorFrame } from './chunk-handlers.js';
import { extendLine, lineTooLong, maxStreamLineChars } from './framing.js';
import type { StreamCodec } from './stream-driver.js';

export interface OpenAiSseOptions {
  transform: ChunkTransform;
  /** The client asked for stream_options.include_usage: forward (or synthesize) the usage chunk. */
  clientWantsUsage: boolean;
  startedAt: number;
  model: string;
  /** The client's Accept-Language: an upstream error event passed on mid-stream is told in its language. */
  acceptLanguage?: string;
}

const done = 'data: [DONE]\n\n';
// Searched without their opening quote: JSON has a quote every few characters, which slows a search
// whose first character is one. `error"` without its `e` too: `e` is the most common letter of
// chunk text (keys and content), so a search that starts on it stops at nearly every other byte.
const usageKey = 'usage"';
const errorKey = 'rror"';

/** Unparsed event text kept for counting (read-only transforms) before it is counted in one go. */
const maxDeferredChars = 64 * 1024;

/**
 * The codec of OpenAI-wire answers (stream-driver.ts drives it): splits upstream SSE into lines,
 * runs the provider's chunk transform on data events and totals usage as chunks pass; the OpenAI
 * pass-through is its read-only case.
 *
 * Fast path for read-only transforms (OpenAI wire): runs of plain `data: ` lines without `"usage"`
 * are copied to the client as they came (one search for `"usage"` per piece, no per-event strings);
 * their text is kept (up to maxDeferredChars, then counted) and only parsed and counted if the stream
 * ends without usage. Only lines with `"usage"`, `[DONE]` and other lines (comments, `event:`, data
 * without the space) are looked at one by one. With upstream usage no tokenizer runs.
 * Memory per stream is bounded by one upstream read, the deferred text and the counter's small buffer.
 */
export class OpenAiSseCodec implements StreamCodec {
  failure: unknown = null;
  readonly holdsUntilContent = false;
  readonly hasContent = false;
  /** Made for the first piece that ends inside a multi-byte character. */
  private decoder: TextDecoder | null = null;
  /** The decoder holds the first bytes of a character split across pieces. */
  private isDecoderPending = false;
  private counter: StreamingTokenCounter | null = null;
  private readonly isReadOnly: boolean;
  /** The unfinished last line of the previous piece. */
  private carry = '';
  private usage: Usage | null = null;
  /** Time to the first passed or transformed data line. */
  frtMs = 0;
  private isLastUsageChunkSeen = false;
  private lastId = '';
  /** Passed-through text not yet counted (read-only transforms, while no usage has been seen). */
  private deferred: string[] = [];
  private deferredChars = 0;
  /** The latest passed-through text: its last event is parsed for its id only if a usage chunk must be synthesized. */
  private lastPassed: string | null = null;
  /** Read-only framing: a copied data line's event has not been closed by a blank line yet. */
  private isInsideEvent = false;
  /** Read-only framing: the blank lines that follow are the end of a line already answered or dropped. */
  private isSkippingBlank = false;

  constructor(private readonly options: OpenAiSseOptions) {
    this.isReadOnly = options.transform.isReadOnly === true;
  }

  push(piece: Buffer, isStarted: boolean): string | Buffer {
    const decoded = this.decode(piece);
    const longer = extendLine(this.carry, decoded);
    if (longer !== null) {
      this.carry = longer;
      return '';
    }
    // An ASCII piece that starts a line: each character is the byte at its index, so what is copied
    // unchanged can go out as the piece's own bytes (no UTF-8 length or encoding when it is written).
    const bytes = this.carry.length === 0 && isAscii(piece) ? piece : null;
    const text = this.carry.length === 0 ? decoded : this.carry + decoded;
    // A piece almost always ends a line: then no search (V8's lastIndexOf is a slow runtime call).
    const cut = text.charCodeAt(text.length - 1) === 10 /* \n */ ? text.length : text.lastIndexOf('\n') + 1;
    if (cut === 0) {
      if (text.length > maxStreamLineChars) throw lineTooLong();
      this.carry = text;
      return '';
    }
    this.carry = cut === text.length ? '' : text.slice(cut);
    if (!isStarted) {
      const failure = this.firstEventError(text, cut);
      if (failure) {
        this.failure = failure;
        return '';
      }
    }
    return this.isReadOnly ? this.passLines(text, cut, bytes) : this.transformLines(text, cut);
  }

  end(): string {
    const rest = this.carry.trim();
    if (!rest) return '';
    const output = this.handleLine(rest);
    if (!output) return '';
    const closed = this.isInsideEvent ? `\n${output}` : output;
    this.isInsideEvent = false;
    return closed;
  }

  /**
   * Before the first byte: an upstream that answers 200 and then an error event as its first event
   * (OpenRouter, some proxies) has failed; with `start`, that is an UpstreamError the caller may fail
   * over on. Only the first data line is looked at.
   */
  private firstEventError(text: string, end: number): UpstreamError | null {
    let start = 0;
    while (start < end) {
      const newline = text.indexOf('\n', start);
      if (text.startsWith('data:', start)) {
        // Only this line is searched (a sliced string, not a copy; lastIndexOf is a slow runtime call).
        if (!text.slice(start, newline).includes(errorKey)) return null;
        const lineEnd = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
        const data = text.slice(start + 5, lineEnd);
        let chunk: Record<string, unknown>;
        try {
          chunk = JSON.parse(data) as Record<string, unknown>;
        } catch {
          return null;
        }
        return errorOfChunk(chunk, data);
      }
      start = newline + 1;
    }
    return null;
  }

  /** A piece that ends in an ASCII byte ends on a character boundary, unless the decoder holds a character's start. */
  private decode(piece: Buffer): string {
    if (piece.length === 0) return '';
    const last = piece[piece.length - 1]!;
    if (!this.isDecoderPending && last < 0x80) return piece.toString('utf8');
    this.decoder ??= new TextDecoder();
    this.isDecoderPending = last >= 0x80;
    return this.decoder.decode(piece, { stream: true });
  }

  /**
   * Read-only transforms: the complete lines text[0, end) as output. Runs of plain lines (`data: `
   * without `"usage"` or `[DONE]`, and blank lines) are copied whole; any other line goes through
   * handleLine. Framing stays the upstream's, with two rules kept across pieces: the blank lines
   * after a line that was answered or dropped between events are dropped too (no empty events), and
   * an event left open by a copied line is closed before anything else is written. When the output
   * is one copied run and `bytes` holds the text's bytes, it is returned as a slice of them.
   */
  private passLines(text: string, end: number, bytes: Buffer | null): string | Buffer {
    let output = '';
    // The output's parts so far, and where the first one, when copied, begins and ends in text.
    let parts = 0;
    let copiedFrom = 0;
    let copiedTo = 0;
    let usageAt = text.indexOf(usageKey);
    // Error events are rewritten (classified and redacted, errors.ts), never copied.
    let errorAt = text.indexOf(errorKey);
    let runStart = 0;
    let runHasData = false;
    let start = 0;
    while (start < end) {
      const newline = text.indexOf('\n', start);
      const lineEnd = newline > start && text.charCodeAt(newline - 1) === 13 /* \r */ ? newline - 1 : newline;
      if (lineEnd === start) {
        if (this.isSkippingBlank) runStart = newline + 1;
        else this.isInsideEvent = false;
        start = newline + 1;
        continue;
      }
      if (usageAt >= 0 && usageAt < start) usageAt = text.indexOf(usageKey, start);
      const hasUsage = usageAt >= 0 && usageAt < lineEnd;
      if (errorAt >= 0 && errorAt < start) errorAt = text.indexOf(errorKey, start);
      const hasError = errorAt >= 0 && errorAt < lineEnd;
      const isDone = text.charCodeAt(start + 6) === 91 /* [ */ && text.startsWith('data: [DONE]', start);
      if (hasUsage || hasError || isDone || !text.startsWith('data: ', start)) {
        if (runStart < start) {
          output += this.passRun(text.slice(runStart, start), runHasData);
          if (parts++ === 0) {
            copiedFrom = runStart;
            copiedTo = start;
          }
        }
        runHasData = false;
        const answered =
          text.charCodeAt(start) === 58 /* ':' comment */ ? '' : this.handleLine(text.slice(start, lineEnd), hasUsage, hasError);
        if (answered.length > 0) {
          if (this.isInsideEvent) output += '\n';
          output += answered;
          parts += 2;
          this.isInsideEvent = false;
          this.isSkippingBlank = true;
        } else {
          // A dropped line inside an open event: the blank line after it still closes that event.
          this.isSkippingBlank = !this.isInsideEvent;
        }
        runStart = newline + 1;
      } else {
        this.isSkippingBlank = false;
        runHasData = true;
        // The blank line (a second \n) that ends this event is taken in the same step (the common case).
        const isEventEnd = text.charCodeAt(newline + 1) === 10;
        this.isInsideEvent = !isEventEnd;
        start = isEventEnd ? newline + 2 : newline + 1;
        continue;
      }
      start = newline + 1;
    }
    if (runStart < end) {
      output += this.passRun(runStart === 0 && end === text.length ? text : text.slice(runStart, end), runHasData);
      if (parts++ === 0) {
        copiedFrom = runStart;
        copiedTo = end;
      }
    }
    return parts === 1 && bytes !== null ? bytes.subarray(copiedFrom, copiedTo) : output;
  }

  /** Lines passed on unparsed; kept for counting while no usage has been seen. */
  private passRun(run: string, hasData: boolean): string {
    if (!hasData) return run;
    if (this.usage === null) {
      this.deferred.push(run);
      this.deferredChars += run.length;
      if (this.deferredChars > maxDeferredChars) this.countDeferred();
    }
    this.lastPassed = run;
    if (this.frtMs === 0) this.frtMs = Date.now() - this.options.startedAt;
    return run;
  }

  /** Transforms that change chunks: every line of text[0, end) through handleLine. */
  private transformLines(text: string, end: number): string {
    let output = '';
    let start = 0;
    while (start < end) {
      const newline = text.indexOf('\n', start);
      const lineEnd = newline > start && text.charCodeAt(newline - 1) === 13 /* \r */ ? newline - 1 : newline;
      if (lineEnd > start && text.charCodeAt(start) !== 58 /* ':' comment */) output += this.handleLine(text.slice(start, lineEnd));
      start = newline + 1;
    }
    return output;
  }

  /** The data of each data line of passed-through text (not [DONE]). */
  private static *dataLines(text: string): Generator<string> {
    let start = 0;
    while (start < text.length) {
      let newline = text.indexOf('\n', start);
      if (newline < 0) newline = text.length;
      const lineEnd = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      if (text.startsWith('data:', start)) {
        const data = text.slice(start + (text.charCodeAt(start + 5) === 32 ? 6 : 5), lineEnd);
        if (data !== '[DONE]') yield data;
      }
      start = newline + 1;
    }
  }

  private countDeferred(): void {
    for (const run of this.deferred) {
      for (const data of OpenAiSseCodec.dataLines(run)) this.countText(data);
    }
    this.deferred = [];
    this.deferredChars = 0;
  }

  private countText(data: string): void {
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return;
    }
    const verdict = this.options.transform.onChunk(chunk);
    if (verdict.text) (this.counter ??= new StreamingTokenCounter()).push(verdict.text);
  }

  /** One line; `hasUsage`/`hasError`: the caller already found `usage"`/`error"` in it. */
  private handleLine(line: string, hasUsage = false, hasError = false): string {
    if (!line.startsWith('data:')) return '';
    const hasSpace = line.charCodeAt(5) === 32;
    const data = hasSpace ? line.slice(6) : line.slice(5);
    if (data === '[DONE]') return '';
    if (this.isReadOnly && !hasUsage && !hasError && !data.includes('"usage"')) return this.passRun(`data: ${data}\n\n`, true);
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return `data: ${data}\n\n`;
    }
    if (chunk.error !== undefined) {
      const failure = errorOfChunk(chunk, data);
      if (failure)
        return `data: ${JSON.stringify(publicErrorOf(failure).inLanguage(languageOf(this.options.acceptLanguage)).toBody())}\n\n`;
    }
    const verdict = this.options.transform.onChunk(chunk);
    if (typeof chunk.id === 'string') {
      this.lastId = chunk.id;
      this.lastPassed = null;
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
      if (this.isReadOnly) {
        this.deferred.push(`data: ${data}\n`);
        this.deferredChars += data.length;
        if (this.deferredChars > maxDeferredChars) this.countDeferred();
      } else {
        (this.counter ??= new StreamingTokenCounter()).push(verdict.text);
      }
    }
    if (this.frtMs === 0) this.frtMs = Date.now() - this.options.startedAt;
    return `data: ${verdict.isModified ? JSON.stringify(chunk) : data}\n\n`;
  }

  /** The bill was counted here (the upstream sent no usage). */
  get isUsageCounted(): boolean {
    return this.usage === null;
  }

  billedUsage(_isComplete: boolean, countPromptTokens: () => number): Usage {
    if (this.usage !== null) return this.usage;
    this.countDeferred();
    return { promptTokens: countPromptTokens(), completionTokens: this.counter?.finish() ?? 0, cachedTokens: 0 };
  }

  close(usage: Usage, error: unknown): string {
    let frames = this.isInsideEvent ? '\n' : '';
    if (this.options.clientWantsUsage && !this.isLastUsageChunkSeen) frames += this.synthesizedUsage(usage);
    return frames + (error !== null ? streamErrorFrame('openai', error) + done : done);
  }

  private synthesizedUsage(final: Usage): string {
    if (this.lastPassed !== null) {
      let lastData: string | null = null;
      for (const data of OpenAiSseCodec.dataLines(this.lastPassed)) lastData = data;
      try {
        const id = lastData === null ? undefined : (JSON.parse(lastData) as Record<string, unknown>).id;
        if (typeof id === 'string') this.lastId = id;
      } catch {
        // keep the last id seen
      }
    }
    const synthesized = {
      id: this.lastId,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: this.options.model,
      choices: [],
      usage: {
        prompt_tokens: final.promptTokens,
        completion_tokens: final.completionTokens,
        total_tokens: final.promptTokens + final.completionTokens,
      },
    };
    return `data: ${JSON.stringify(synthesized)}\n\n`;
  }
}
