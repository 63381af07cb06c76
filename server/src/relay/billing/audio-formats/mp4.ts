import type { Bytes } from './bytes.js';

/** A box type as its four bytes read big-endian. */
const fourCc = (type: string): number =>
  ((type.charCodeAt(0) << 24) >>> 0) + (type.charCodeAt(1) << 16) + (type.charCodeAt(2) << 8) + type.charCodeAt(3);
const mp4TopLevel = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot', 'uuid'].map(fourCc));
const [moovBox, mvhdBox, mvexBox, mehdBox, trakBox, tkhdBox, mdiaBox, mdhdBox, trexBox, moofBox, trafBox, tfhdBox, trunBox] = [
  'moov',
  'mvhd',
  'mvex',
  'mehd',
  'trak',
  'tkhd',
  'mdia',
  'mdhd',
  'trex',
  'moof',
  'traf',
  'tfhd',
  'trun',
].map(fourCc) as [number, number, number, number, number, number, number, number, number, number, number, number, number];

export const isMp4 = (bytes: Bytes): boolean => bytes.u32be(0) >= 8 && mp4TopLevel.has(bytes.u32be(4));

interface Box {
  type: number;
  body: number;
  end: number;
}

/**
 * Walks the boxes between `from` and `to` (a box running past the end is cut at the end), calling
 * `visit` until it returns true. Every box read spends one unit of the file's shared `budget`: real
 * files have few boxes for their size, so a file of tiny boxes is cut short.
 */
function eachBox(bytes: Bytes, from: number, to: number, budget: { left: number }, visit: (box: Box) => boolean | void): void {
  let at = from;
  const box: Box = { type: 0, body: 0, end: 0 };
  while (at + 8 <= to && budget.left > 0) {
    budget.left -= 1;
    const size32 = bytes.u32be(at);
    let body = at + 8;
    let size = size32;
    if (size32 === 1) {
      size = bytes.u64be(at + 8);
      body = at + 16;
    } else if (size32 === 0) {
      size = to - at;
    }
    if (size < body - at) return; // a size smaller than its own header: broken
    box.type = bytes.u32be(at + 4);
    box.body = body;
    box.end = Math.min(at + size, to);
    if (visit(box)) return;
    at += size;
  }
}

function findBox(bytes: Bytes, within: { body: number; end: number }, type: number, budget: { left: number }): Box | null {
  let found: Box | null = null;
  eachBox(bytes, within.body, within.end, budget, (box) => {
    if (box.type !== type) return false;
    found = { ...box };
    return true;
  });
  return found;
}

/** A full box's (version, flags) then times: mvhd, mdhd and their duration ÷ timescale. */
function headerDuration(bytes: Bytes, box: Box): number | null {
  const version = bytes.u8(box.body);
  const timescale = version === 1 ? bytes.u32be(box.body + 20) : bytes.u32be(box.body + 12);
  const duration = version === 1 ? bytes.u64be(box.body + 24) : bytes.u32be(box.body + 16);
  if (timescale <= 0 || duration <= 0 || (version !== 1 && duration === 0xffffffff)) return null;
  return duration / timescale;
}

/**
 * MP4/M4A/MOV: moov/mvhd duration ÷ timescale; a fragmented file (duration 0, as Safari's
 * MediaRecorder and `-movflags frag_keyframe` write) uses mvex/mehd (in mvhd's timescale), else the
 * longest trak/mdia/mdhd, else the sample durations of its fragments (moof/traf/trun).
 */
export function mp4Seconds(bytes: Bytes): number | null {
  const budget = { left: Math.floor(bytes.length / 64) + 4096 };
  const moov = findBox(bytes, { body: 0, end: bytes.length }, moovBox, budget);
  if (!moov) return null;
  const mvhd = findBox(bytes, moov, mvhdBox, budget);
  const movie = mvhd ? headerDuration(bytes, mvhd) : null;
  if (movie !== null) return movie;
  const mvex = findBox(bytes, moov, mvexBox, budget);
  const mehd = mvex ? findBox(bytes, mvex, mehdBox, budget) : null;
  if (mvhd && mehd) {
    const version = bytes.u8(mvhd.body);
    const timescale = version === 1 ? bytes.u32be(mvhd.body + 20) : bytes.u32be(mvhd.body + 12);
    const fragments = bytes.u8(mehd.body) === 1 ? bytes.u64be(mehd.body + 4) : bytes.u32be(mehd.body + 4);
    if (timescale > 0 && fragments > 0) return fragments / timescale;
  }
  let longest: number | null = null;
  eachBox(bytes, moov.body, moov.end, budget, (trak) => {
    if (trak.type !== trakBox) return;
    const mdia = findBox(bytes, trak, mdiaBox, budget);
    const mdhd = mdia ? findBox(bytes, mdia, mdhdBox, budget) : null;
    const seconds = mdhd ? headerDuration(bytes, mdhd) : null;
    if (seconds !== null && (longest === null || seconds > longest)) longest = seconds;
  });
  return longest ?? fragmentSeconds(bytes, moov, mvex, budget);
}

/** One full box's flags (the 24 bits after its version byte). */
const boxFlags = (bytes: Bytes, box: Box): number => (bytes.u8(box.body + 1) << 16) | bytes.u16be(box.body + 2);

/**
 * A fragmented file's length: the first track's samples summed over every moof/traf/trun (durations
 * per sample, or tfhd's default, or mvex/trex's), in that track's mdhd timescale.
 */
function fragmentSeconds(bytes: Bytes, moov: Box, mvex: Box | null, budget: { left: number }): number | null {
  const trak = findBox(bytes, moov, trakBox, budget);
  const tkhd = trak ? findBox(bytes, trak, tkhdBox, budget) : null;
  const mdia = trak ? findBox(bytes, trak, mdiaBox, budget) : null;
  const mdhd = mdia ? findBox(bytes, mdia, mdhdBox, budget) : null;
  if (!tkhd || !mdhd) return null;
  const trackId = bytes.u32be(tkhd.body + (bytes.u8(tkhd.body) === 1 ? 20 : 12));
  const timescale = bytes.u32be(mdhd.body + (bytes.u8(mdhd.body) === 1 ? 20 : 12));
  if (timescale <= 0) return null;
  let trexDuration = 0;
  if (mvex) {
    eachBox(bytes, mvex.body, mvex.end, budget, (trex) => {
      if (trex.type === trexBox && bytes.u32be(trex.body + 4) === trackId) trexDuration = Math.max(0, bytes.u32be(trex.body + 12));
    });
  }
  let total = 0;
  eachBox(bytes, 0, bytes.length, budget, (moof) => {
    if (moof.type !== moofBox) return;
    eachBox(bytes, moof.body, moof.end, budget, (traf) => {
      if (traf.type !== trafBox) return;
      const tfhd = findBox(bytes, traf, tfhdBox, budget);
      if (!tfhd || bytes.u32be(tfhd.body + 4) !== trackId) return;
      const tfhdFlags = boxFlags(bytes, tfhd);
      const durationAt = tfhd.body + 8 + (tfhdFlags & 0x01 ? 8 : 0) + (tfhdFlags & 0x02 ? 4 : 0);
      const defaultDuration = tfhdFlags & 0x08 ? Math.max(0, bytes.u32be(durationAt)) : trexDuration;
      eachBox(bytes, traf.body, traf.end, budget, (trun) => {
        if (trun.type !== trunBox) return;
        const flags = boxFlags(bytes, trun);
        const count = bytes.u32be(trun.body + 4);
        if (count <= 0) return;
        const at = trun.body + 8 + (flags & 0x01 ? 4 : 0) + (flags & 0x04 ? 4 : 0);
        if (!(flags & 0x100)) {
          total += count * defaultDuration;
          return;
        }
        const entry = 4 * (1 + (flags & 0x200 ? 1 : 0) + (flags & 0x400 ? 1 : 0) + (flags & 0x800 ? 1 : 0));
        if (at + count * entry > trun.end) return; // a count the box cannot hold: broken
        for (let i = 0; i < count; i += 1) total += bytes.u32be(at + i * entry);
      });
    });
  });
  return total > 0 ? total / timescale : null;
}
