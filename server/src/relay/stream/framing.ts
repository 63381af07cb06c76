import { createBedrockEventDecoder } from '../providers/aws-bedrock/event-stream.js';
import { UpstreamError } from '../errors.js';
import type { StreamEvent, StreamFraming } from '../providers/types.js';

/**
 * The longest line (SSE, NDJSON) an upstream stream may send: 16 Mi characters, far above any event
 * a model streams (a partial image in base64 is a few MB). Past it the answer is unreadable: a
 * broken or hostile upstream cannot make the gateway hold an endless line.
 */
export const maxStreamLineChars = 16 * 1024 * 1024;

/** The failure of a stream whose line ran past maxStreamLineChars (the channel's: another may serve the call). */
export function lineTooLong(): UpstreamError {
  return new UpstreamError(0, `上游流式响应的一行超过 ${maxStreamLineChars / 1024 / 1024} MiB`, 'upstream_unreadable', '');
}

/**
 * Appends a piece to the unfinished line `carry` when the piece ends no line: null when it does and
 * the caller must split. The line is not searched again (a flattened copy per piece would make a
 * long line cost its length squared); V8 keeps the concatenation as a rope until it is read.
 */
export function extendLine(carry: string, piece: string): string | null {
  if (carry.length === 0 || piece.includes('\n')) return null;
  if (carry.length + piece.length > maxStreamLineChars) throw lineTooLong();
  return carry + piece;
}

/** A decoder's unfinished line, held to maxStreamLineChars; a piece that ends no line is appended unsearched (extendLine). */
class LineCarry {
  text = '';

  /** Appends a piece: true when it may have ended a line (the caller splits `text`, then `keep`s the rest). */
  add(piece: string): boolean {
    const longer = extendLine(this.text, piece);
    if (longer !== null) {
      this.text = longer;
      return false;
    }
    this.text += piece;
    return true;
  }

  keep(rest: string): void {
    if (rest.length > maxStreamLineChars) throw lineTooLong();
    this.text = rest;
  }
}

/** Turns upstream bytes into stream events; `finish` flushes what the body left unterminated. */
export interface FramingDecoder {
  push(bytes: Uint8Array): StreamEvent[];
  finish(): StreamEvent[];
}

/** 'whole': the complete body as one event (upstreams that cannot stream, e.g. PaLM). */
export type DecoderFraming = StreamFraming | 'whole';

/**
 * SSE: `event:` and `data:` lines up to a blank line make one event; comments are dropped. `isRaw`
 * ('sse-raw' framing): values are kept verbatim, other fields than event/data/id/retry go into
 * `fields`, and a bare JSON object line before any field is an event of its own.
 */
function createSseDecoder(isRaw = false): FramingDecoder {
  const text = new TextDecoder();
  const carry = new LineCarry();
  let event: string | null = null;
  let data: string[] = [];
  let fields: Record<string, string> | null = null;
  const flush = (out: StreamEvent[]) => {
    if (fields) out.push({ event, data: data.join('\n'), fields });
    else if (data.length > 0) out.push({ event, data: data.join('\n') });
    event = null;
    data = [];
    fields = null;
  };
  const line = (raw: string, out: StreamEvent[]) => {
    const value = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (value === '') return flush(out);
    if (value.charCodeAt(0) === 58 /* ':' */) return;
    if (isRaw && value.charCodeAt(0) === 123 /* '{' */ && event === null && data.length === 0 && !fields) {
      out.push({ event: null, data: value });
      return;
    }
    const colon = value.indexOf(':');
    const field = colon === -1 ? value : value.slice(0, colon);
    let rest = colon === -1 ? '' : value.slice(colon + 1);
    if (!isRaw && rest.charCodeAt(0) === 32) rest = rest.slice(1);
    if (field === 'data') data.push(rest);
    else if (field === 'event') event = rest;
    else if (isRaw && field !== 'id' && field !== 'retry') (fields ??= {})[field] = rest;
  };
  return {
    push(bytes) {
      if (!carry.add(text.decode(bytes, { stream: true }))) return [];
      const all = carry.text;
      const out: StreamEvent[] = [];
      let start = 0;
      let newline = all.indexOf('\n');
      while (newline !== -1) {
        line(all.slice(start, newline), out);
        start = newline + 1;
        newline = all.indexOf('\n', start);
      }
      carry.keep(all.slice(start));
      return out;
    },
    finish() {
      const out: StreamEvent[] = [];
      if (carry.text.trim()) line(carry.text, out);
      carry.keep('');
      flush(out);
      return out;
    },
  };
}

/** NDJSON: one event per non-empty line. */
function createNdjsonDecoder(): FramingDecoder {
  const text = new TextDecoder();
  const carry = new LineCarry();
  const lines = (final: boolean): StreamEvent[] => {
    const parts = carry.text.split('\n');
    carry.keep(final ? '' : parts.pop()!);
    return parts
      .map((part) => part.trim())
      .filter(Boolean)
      .map((data) => ({ event: null, data }));
  };
  return {
    push(bytes) {
      return carry.add(text.decode(bytes, { stream: true })) ? lines(false) : [];
    },
    finish: () => lines(true),
  };
}

function createWholeDecoder(): FramingDecoder {
  const parts: Buffer[] = [];
  return {
    push(bytes) {
      parts.push(Buffer.from(bytes));
      return [];
    },
    finish: () => [{ event: null, data: Buffer.concat(parts).toString('utf8') }],
  };
}

export function createFramingDecoder(framing: DecoderFraming): FramingDecoder {
  if (framing === 'ndjson') return createNdjsonDecoder();
  if (framing === 'aws-eventstream') return createBedrockEventDecoder();
  if (framing === 'whole') return createWholeDecoder();
  if (framing === 'sse-raw') return createSseDecoder(true);
  return createSseDecoder();
}
