import { crc32 } from 'node:zlib';

/**
 * Encodes one AWS event-stream frame (string headers only) — the test-side counterpart of the
 * decoder, using zlib's CRC-32 so the decoder's own CRC code is checked against another one.
 */
export function encodeEventStreamFrame(headers: Record<string, string>, payload: Uint8Array | string): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, 'utf8');
      const valueBytes = Buffer.from(value, 'utf8');
      const head = Buffer.alloc(1 + nameBytes.length + 1 + 2);
      head.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(head, 1);
      head.writeUInt8(7, 1 + nameBytes.length);
      head.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      return Buffer.concat([head, valueBytes]);
    }),
  );
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
  const total = 12 + headerBytes.length + body.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const withoutCrc = Buffer.concat([prelude, headerBytes, body]);
  const messageCrc = Buffer.alloc(4);
  messageCrc.writeUInt32BE(crc32(withoutCrc), 0);
  return Buffer.concat([withoutCrc, messageCrc]);
}

/** A Bedrock `chunk` event frame: payload `{"bytes":"<base64 of the Anthropic event JSON>"}`. */
export function bedrockChunkFrame(event: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(event), 'utf8').toString('base64');
  return encodeEventStreamFrame(
    { ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' },
    JSON.stringify({ bytes }),
  );
}

/** A Bedrock exception frame (throttlingException, modelStreamErrorException, …). */
export function bedrockExceptionFrame(type: string, message: string): Buffer {
  return encodeEventStreamFrame(
    { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    JSON.stringify({ message }),
  );
}
