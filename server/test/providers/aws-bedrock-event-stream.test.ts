import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/relay/providers/aws-bedrock/crc32.js';
import { createBedrockEventDecoder, EventStreamDecoder, EventStreamError } from '../../src/relay/providers/aws-bedrock/event-stream.js';
import { bedrockChunkFrame, bedrockExceptionFrame, encodeEventStreamFrame } from './helpers/aws-event-stream-encoder.js';

/** A `chunk` frame for {"type":"message_stop"}, built and CRC-checked by botocore 1.43's EventStreamBuffer. */
const referenceFrame = Buffer.from(
  '000000870000004b87ea2bf30b3a6576656e742d747970650700056368756e6b0d3a636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d6573736167652d747970650700056576656e747b226279746573223a2265794a306558426c496a6f696257567a6332466e5a56397a64473977496e303d227dba48ab22',
  'hex',
);

describe('AWS event stream decoder', () => {
  it('computes CRC-32 check values', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(crc32(referenceFrame.subarray(0, 8))).toBe(0x87ea2bf3);
    expect(crc32(referenceFrame.subarray(0, referenceFrame.length - 4))).toBe(0xba48ab22);
  });

  it('encodes the reference frame byte for byte and decodes it', () => {
    expect(bedrockChunkFrame({ type: 'message_stop' }).equals(referenceFrame)).toBe(true);
    const [message] = new EventStreamDecoder().push(referenceFrame);
    expect(message!.headers).toEqual({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' });
    expect(Buffer.from(message!.payload).toString()).toBe('{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0="}');
    expect(createBedrockEventDecoder().push(referenceFrame)).toEqual([{ event: 'chunk', data: '{"type":"message_stop"}' }]);
  });

  it('accepts arbitrary chunk boundaries, one byte at a time included', () => {
    const stream = Buffer.concat([
      bedrockChunkFrame({ type: 'ping' }),
      bedrockChunkFrame({ type: 'message_stop', n: 'é' }),
      bedrockExceptionFrame('throttlingException', 'Too many tokens'),
    ]);
    for (const size of [1, 3, 7, 64, stream.length]) {
      const decoder = createBedrockEventDecoder();
      const events = [];
      for (let at = 0; at < stream.length; at += size) events.push(...decoder.push(stream.subarray(at, at + size)));
      decoder.finish();
      expect(events).toEqual([
        { event: 'chunk', data: '{"type":"ping"}' },
        { event: 'chunk', data: '{"type":"message_stop","n":"é"}' },
        { event: 'throttlingException', data: '{"message":"Too many tokens"}' },
      ]);
    }
  });

  it('decodes an 8 MB frame sent in 64 KiB pieces (joined once, not per piece)', () => {
    const payload = JSON.stringify({ bytes: 'x'.repeat(8 * 1024 * 1024) });
    const frame = encodeEventStreamFrame({ ':message-type': 'event', ':event-type': 'chunk' }, payload);
    const stream = Buffer.concat([frame, referenceFrame]);
    const decoder = new EventStreamDecoder();
    const messages = [];
    for (let at = 0; at < stream.length; at += 64 * 1024) messages.push(...decoder.push(stream.subarray(at, at + 64 * 1024)));
    decoder.finish();
    expect(messages).toHaveLength(2);
    expect(Buffer.from(messages[0]!.payload).toString()).toBe(payload);
    expect(messages[1]!.headers[':event-type']).toBe('chunk');
  });

  it('rejects corrupted CRCs and truncated frames', () => {
    const badPrelude = Buffer.from(referenceFrame);
    badPrelude[9] = badPrelude[9]! ^ 0xff;
    expect(() => new EventStreamDecoder().push(badPrelude)).toThrow(/prelude CRC/);
    const badPayload = Buffer.from(referenceFrame);
    badPayload[100] = badPayload[100]! ^ 0x01;
    expect(() => new EventStreamDecoder().push(badPayload)).toThrow(/message CRC/);
    const decoder = new EventStreamDecoder();
    expect(decoder.push(referenceFrame.subarray(0, 50))).toEqual([]);
    expect(() => decoder.finish()).toThrow(EventStreamError);
  });

  it('reads typed headers and error frames', () => {
    const error = encodeEventStreamFrame({ ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'boom' }, '');
    expect(createBedrockEventDecoder().push(error)).toEqual([{ event: 'InternalFailure', data: '{"message":"boom"}' }]);
    // A hand-built frame with int32 (type 4), bool (0) and byte-array (6) headers.
    const headers = Buffer.concat([
      Buffer.from([1, 0x69, 4, 0, 0, 1, 0]),
      Buffer.from([1, 0x62, 0]),
      Buffer.from([1, 0x61, 6, 0, 2, 0xab, 0xcd]),
    ]);
    const prelude = Buffer.alloc(12);
    prelude.writeUInt32BE(12 + headers.length + 2 + 4, 0);
    prelude.writeUInt32BE(headers.length, 4);
    prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
    const body = Buffer.concat([prelude, headers, Buffer.from('{}')]);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc32(body), 0);
    const [message] = new EventStreamDecoder().push(Buffer.concat([body, tail]));
    expect(message!.headers).toEqual({ i: 256, b: true, a: new Uint8Array([0xab, 0xcd]) });
  });
});
