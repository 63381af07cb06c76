import type { Bytes } from './bytes.js';

const ebml = {
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  cluster: 0x1f43b675,
  timecode: 0xe7,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  blockDuration: 0x9b,
};
/** Masters whose children are read in place (their size may be "unknown", as MediaRecorder writes). */
const ebmlMasters = new Set([ebml.segment, ebml.info, ebml.cluster, ebml.blockGroup]);

/**
 * One EBML variable-length integer at `at` into `out` (no allocation: this runs once per element):
 * its value (the marker bit removed, or kept for element IDs), its length, and whether a size is
 * "unknown" (all value bits set). False when the bytes are not one.
 */
function readVint(bytes: Bytes, at: number, keepMarker: boolean, out: Vint): boolean {
  const first = bytes.u8(at);
  if (first <= 0) return false;
  const length = Math.clz32(first) - 23;
  if (length > 8 || !bytes.has(at, length)) return false;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i += 1) {
    const byte = bytes.data[at + i]!;
    value = value * 256 + byte;
    if (byte !== 0xff) allOnes = false;
  }
  out.value = value;
  out.length = length;
  out.isUnknown = !keepMarker && allOnes;
  return true;
}

interface Vint {
  value: number;
  length: number;
  isUnknown: boolean;
}

function ebmlUint(bytes: Bytes, at: number, size: number): number {
  if (size < 1 || size > 8 || !bytes.has(at, size)) return -1;
  let value = 0;
  for (let i = 0; i < size; i += 1) value = value * 256 + bytes.u8(at + i);
  return value;
}

function ebmlFloat(bytes: Bytes, at: number, size: number): number {
  if (!bytes.has(at, size)) return -1;
  const view = new DataView(bytes.data.buffer, bytes.data.byteOffset + at, size);
  if (size === 4) return view.getFloat32(0);
  if (size === 8) return view.getFloat64(0);
  return -1;
}

/**
 * WebM/Matroska: Segment/Info Duration × TimecodeScale; without a Duration (live recordings), the
 * latest block time (cluster Timecode + the block's offset, + BlockDuration when given). Elements are
 * read in one forward pass: the masters above are entered, every other element skipped by its size.
 */
export function matroskaSeconds(bytes: Bytes): number | null {
  let scale = 1_000_000;
  let duration = -1;
  let clusterTime = 0;
  let latest = -1;
  let blockTime = -1;
  let at = 0;
  const id: Vint = { value: 0, length: 0, isUnknown: false };
  const size: Vint = { value: 0, length: 0, isUnknown: false };
  const track: Vint = { value: 0, length: 0, isUnknown: false };
  // Real files have blocks of at least a few bytes each: a file of tiny elements is cut short.
  let budget = Math.floor(bytes.length / 8) + 1024;
  while (at < bytes.length && budget > 0) {
    budget -= 1;
    if (!readVint(bytes, at, true, id) || !readVint(bytes, at + id.length, false, size)) break;
    const body = at + id.length + size.length;
    if (ebmlMasters.has(id.value)) {
      if (id.value === ebml.cluster) clusterTime = 0;
      at = body;
      continue;
    }
    if (size.isUnknown) break;
    if (id.value === ebml.timecodeScale) scale = ebmlUint(bytes, body, size.value);
    else if (id.value === ebml.duration) duration = ebmlFloat(bytes, body, size.value);
    else if (id.value === ebml.timecode) clusterTime = Math.max(0, ebmlUint(bytes, body, size.value));
    else if (id.value === ebml.simpleBlock || id.value === ebml.block) {
      const offset = readVint(bytes, body, false, track) ? bytes.u16be(body + track.length) : -1;
      if (offset >= 0) {
        blockTime = clusterTime + (offset >= 0x8000 ? offset - 0x10000 : offset);
        latest = Math.max(latest, blockTime);
      }
    } else if (id.value === ebml.blockDuration && blockTime >= 0) {
      latest = Math.max(latest, blockTime + Math.max(0, ebmlUint(bytes, body, size.value)));
    }
    at = body + size.value;
  }
  if (scale <= 0) return null;
  if (duration > 0) return (duration * scale) / 1e9;
  return latest > 0 ? (latest * scale) / 1e9 : null;
}
