import type { StreamEvent } from '../types.js';
import { crc32 } from './crc32.js';

/** One decoded frame of the AWS event stream (application/vnd.amazon.eventstream). */
export interface EventStreamMessage {
  headers: Record<string, string | number | boolean | Uint8Array>;
  payload: Uint8Array;
}

const preludeLength = 12;
const maxMessageLength = 16 * 1024 * 1024;

export class EventStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventStreamError';
  }
}

function readHeaders(bytes: Buffer): EventStreamMessage['headers'] {
  const headers: EventStreamMessage['headers'] = {};
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new EventStreamError('event stream header runs past its section');
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes.readUInt8(at);
    need(1 + nameLength + 1);
    const name = bytes.toString('utf8', at + 1, at + 1 + nameLength);
    at += 1 + nameLength;
    const type = bytes.readUInt8(at++);
    switch (type) {
      case 0:
        headers[name] = true;
        break;
      case 1:
        headers[name] = false;
        break;
      case 2:
        need(1);
        headers[name] = bytes.readInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        headers[name] = bytes.readInt16BE(at);
        at += 2;
        break;
      case 4:
        need(4);
        headers[name] = bytes.readInt32BE(at);
        at += 4;
        break;
      case 5:
        need(8);
        headers[name] = Number(bytes.readBigInt64BE(at));
        at += 8;
        break;
      case 8:
        need(8);
        headers[name] = Number(bytes.readBigInt64BE(at));
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = bytes.readUInt16BE(at);
        need(2 + length);
        const value = bytes.subarray(at + 2, at + 2 + length);
        headers[name] = type === 7 ? value.toString('utf8') : new Uint8Array(value);
        at += 2 + length;
        break;
      }
      case 9:
        need(16);
        headers[name] = bytes.subarray(at, at + 16).toString('hex');
        at += 16;
        break;
      default:
        throw new EventStreamError(`unknown event stream header type ${type}`);
    }
  }
  return headers;
}

/**
 * A streaming decoder: push byte chunks of any size, get whole frames back. Each frame is
 * prelude (total length, headers length, prelude CRC32) + headers + payload + message CRC32;
 * both CRCs are checked and a mismatch throws.
 */
export class EventStreamDecoder {
  private pending: Buffer = Buffer.alloc(0);
  /** Pieces after `pending`, joined once `need` bytes are in (a frame is joined once, not per piece). */
  private more: Uint8Array[] = [];
  private size = 0;
  private need = preludeLength;

  push(chunk: Uint8Array): EventStreamMessage[] {
    this.more.push(chunk);
    this.size += chunk.length;
    if (this.size < this.need) return [];
    this.pending = Buffer.concat([this.pending, ...this.more], this.size);
    this.more = [];
    this.need = preludeLength;
    const messages: EventStreamMessage[] = [];
    while (this.pending.length >= preludeLength) {
      const total = this.pending.readUInt32BE(0);
      const headersLength = this.pending.readUInt32BE(4);
      if (crc32(this.pending.subarray(0, 8)) !== this.pending.readUInt32BE(8))
        throw new EventStreamError('event stream prelude CRC mismatch');
      if (total < preludeLength + 4 + headersLength || total > maxMessageLength)
        throw new EventStreamError(`bad event stream message length ${total}`);
      if (this.pending.length < total) {
        this.need = total;
        break;
      }
      const message = this.pending.subarray(0, total);
      if (crc32(message.subarray(0, total - 4)) !== message.readUInt32BE(total - 4))
        throw new EventStreamError('event stream message CRC mismatch');
      messages.push({
        headers: readHeaders(message.subarray(preludeLength, preludeLength + headersLength)),
        payload: new Uint8Array(message.subarray(preludeLength + headersLength, total - 4)),
      });
      this.pending = this.pending.subarray(total);
    }
    this.size = this.pending.length;
    return messages;
  }

  /** Call at the end of the body: leftover bytes mean a truncated frame. */
  finish(): void {
    if (this.size > 0) throw new EventStreamError(`event stream ended inside a frame (${this.size} bytes left)`);
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * Bedrock's InvokeModelWithResponseStream frames → StreamEvents. An event frame's payload is
 * `{"bytes":"<base64>"}`; data is the decoded Anthropic event JSON, event its `:event-type` (chunk).
 * Exception frames give event = `:exception-type` (throttlingException …) and data = the payload;
 * error frames give event = `:error-code` and data = `{"message": :error-message}`.
 */
export function createBedrockEventDecoder() {
  const decoder = new EventStreamDecoder();
  const toEvent = (message: EventStreamMessage): StreamEvent => {
    const payload = Buffer.from(message.payload).toString('utf8');
    const messageType = text(message.headers[':message-type']) || 'event';
    if (messageType === 'exception') return { event: text(message.headers[':exception-type']) || 'exception', data: payload };
    if (messageType === 'error') {
      return {
        event: text(message.headers[':error-code']) || 'error',
        data: JSON.stringify({ message: text(message.headers[':error-message']) }),
      };
    }
    let data = payload;
    try {
      const parsed = JSON.parse(payload) as { bytes?: unknown };
      if (typeof parsed.bytes === 'string') data = Buffer.from(parsed.bytes, 'base64').toString('utf8');
    } catch {
      // not JSON: pass the payload text on
    }
    return { event: text(message.headers[':event-type']) || null, data };
  };
  return {
    push: (chunk: Uint8Array): StreamEvent[] => decoder.push(chunk).map(toEvent),
    finish: (): StreamEvent[] => {
      decoder.finish();
      return [];
    },
  };
}
