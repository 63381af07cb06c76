import { createFramingDecoder, type DecoderFraming } from '../../../src/relay/stream/framing.js';
import type { StreamEvent } from '../../../src/relay/providers/types.js';

/** Decodes recorded stream text with the relay's own framing decoder, fed in 7-byte pieces. */
export function decodeStream(text: string, framing: DecoderFraming): StreamEvent[] {
  const decoder = createFramingDecoder(framing);
  const bytes = Buffer.from(text, 'utf8');
  const events: StreamEvent[] = [];
  for (let at = 0; at < bytes.length; at += 7) events.push(...decoder.push(bytes.subarray(at, at + 7)));
  return [...events, ...decoder.finish()];
}
