import type { Bytes } from './bytes.js';

/** FLAC: STREAMINFO's total samples ÷ sample rate (0 total samples means unknown → null). */
export function flacSeconds(bytes: Bytes, start: number): number | null {
  const info = start + 4;
  if ((bytes.u8(info) & 0x7f) !== 0 || !bytes.has(info + 4, 18)) return null;
  return streamInfoSeconds(bytes, info + 4);
}

/** The sample rate in the 34-byte STREAMINFO block body at `at` (FLAC and Ogg FLAC); 0 when it is cut off. */
export function streamInfoRate(bytes: Bytes, at: number): number {
  return bytes.has(at, 18) ? (bytes.u8(at + 10) << 12) | (bytes.u8(at + 11) << 4) | (bytes.u8(at + 12) >> 4) : 0;
}

/** The 34-byte STREAMINFO block body at `at`: total samples ÷ sample rate. */
function streamInfoSeconds(bytes: Bytes, at: number): number | null {
  const sampleRate = streamInfoRate(bytes, at);
  const total = (bytes.u8(at + 13) & 0x0f) * 0x100000000 + bytes.u32be(at + 14);
  if (sampleRate <= 0 || total <= 0) return null;
  return total / sampleRate;
}
