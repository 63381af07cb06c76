import type { Bytes } from './bytes.js';

/**
 * RIFF/WAVE: the `data` chunk's size (at most what is really there: a truncated upload or a streamed
 * WAV with a 0 or 0xFFFFFFFF size bills the bytes present) ÷ bytes per second. PCM uses sample rate ×
 * block align from `fmt `; compressed WAV its average byte rate, or the `fact` chunk's sample count.
 */
const chunkFmt = 0x666d7420; // "fmt "
const chunkFact = 0x66616374; // "fact"
const chunkData = 0x64617461; // "data"

export function wavSeconds(bytes: Bytes): number | null {
  let at = 12;
  let sampleRate = 0;
  let byteRate = 0;
  let blockAlign = 0;
  let formatTag = 0;
  let factSamples = -1;
  while (bytes.has(at, 8)) {
    const id = bytes.u32be(at);
    const size = bytes.u32le(at + 4);
    const body = at + 8;
    if (id === chunkFmt && bytes.has(body, 16)) {
      formatTag = bytes.u16le(body);
      sampleRate = bytes.u32le(body + 4);
      byteRate = bytes.u32le(body + 8);
      blockAlign = bytes.u16le(body + 12);
    } else if (id === chunkFact && bytes.has(body, 4)) {
      factSamples = bytes.u32le(body);
    } else if (id === chunkData) {
      if (sampleRate <= 0) return null;
      const present = bytes.length - body;
      const dataSize = size === 0 || size === 0xffffffff ? present : Math.min(size, present);
      const isPcm = formatTag === 1 || formatTag === 3 || formatTag === 0xfffe;
      if (isPcm && blockAlign > 0) return Math.floor(dataSize / blockAlign) / sampleRate;
      if (factSamples > 0 && size !== 0 && size <= present) return factSamples / sampleRate;
      return byteRate > 0 ? dataSize / byteRate : null;
    }
    at = body + size + (size & 1); // chunks are padded to an even size
  }
  return null;
}
