import { maxResyncGap, type Bytes } from './bytes.js';

/** Skips ID3v2 tags (several may follow one another) and any zero padding after them. */
export function skipId3v2(bytes: Bytes): number {
  let at = 0;
  while (bytes.ascii(at, 3) === 'ID3' && bytes.has(at, 10)) {
    const flags = bytes.u8(at + 5);
    const size =
      ((bytes.u8(at + 6) & 0x7f) << 21) | ((bytes.u8(at + 7) & 0x7f) << 14) | ((bytes.u8(at + 8) & 0x7f) << 7) | (bytes.u8(at + 9) & 0x7f);
    at += 10 + size + (flags & 0x10 ? 10 : 0);
  }
  while (at < bytes.length && bytes.u8(at) === 0 && at < 1 << 20) at += 1;
  return at;
}

interface Frame {
  /** Bytes in this frame, header included. */
  length: number;
  samples: number;
  sampleRate: number;
  /** Fields two frames of one stream share (version, layer, sample rate; ADTS: rate and profile). */
  key: number;
  isAdts: boolean;
  /** MPEG audio only. */
  version?: number;
  isMono?: boolean;
}

const bitrates: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const mpegRates: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };
const adtsRates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

/** The MPEG audio (layers I–III) or ADTS frame whose header is at `at`; null when there is none. */
function frameAt(bytes: Bytes, at: number): Frame | null {
  if (!bytes.has(at, 4)) return null;
  const b1 = bytes.u8(at + 1);
  if (bytes.u8(at) !== 0xff || (b1 & 0xe0) !== 0xe0) return null;
  const b2 = bytes.u8(at + 2);
  const b3 = bytes.u8(at + 3);
  if ((b1 & 0xf6) === 0xf0) {
    // ADTS: 12-bit sync, layer 00.
    if (!bytes.has(at, 7)) return null;
    const rateIndex = (b2 >> 2) & 0x0f;
    const sampleRate = adtsRates[rateIndex];
    const length = ((b3 & 0x03) << 11) | (bytes.u8(at + 4) << 3) | (bytes.u8(at + 5) >> 5);
    const headerLength = b1 & 0x01 ? 7 : 9;
    if (!sampleRate || length <= headerLength) return null;
    return { length, samples: 1024 * ((bytes.u8(at + 6) & 0x03) + 1), sampleRate, key: 0x10000 | (b2 & 0xfc), isAdts: true };
  }
  const version = (b1 >> 3) & 0x03; // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
  const layerBits = (b1 >> 1) & 0x03; // 3 layer I, 2 layer II, 1 layer III
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 0x03;
  if (version === 1 || layerBits === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3 || (b3 & 0x03) === 2) return null;
  const layer = 4 - layerBits;
  const bitrate = bitrates[`${version === 3 ? 1 : 2}-${layer}`]![bitrateIndex]! * 1000;
  const sampleRate = mpegRates[version]![rateIndex]!;
  const padding = (b2 >> 1) & 0x01;
  const samples = layer === 1 ? 384 : layer === 2 || version === 3 ? 1152 : 576;
  const length =
    layer === 1 ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4 : Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
  if (length < 4) return null;
  return { length, samples, sampleRate, key: (version << 8) | (layerBits << 4) | rateIndex, isAdts: false, version, isMono: b3 >> 6 === 3 };
}

/** A frame that the next frame header confirms (or that ends the file exactly). */
function confirmedFrameAt(bytes: Bytes, at: number): Frame | null {
  const frame = frameAt(bytes, at);
  if (!frame) return null;
  const next = at + frame.length;
  if (next === bytes.length) return frame;
  const following = frameAt(bytes, next);
  return following && following.key === frame.key ? frame : null;
}

/** Bytes searched for the first frame when the file does not start with one (junk before the audio). */
const maxLeadingJunk = 64 * 1024;

/**
 * MPEG audio or ADTS: the Xing/Info or VBRI frame count when the first frame carries one; else the
 * frames are walked (each a few hundred bytes) and their samples summed, resyncing on the next 0xFF
 * after a damaged stretch. At least two frames in a row, or one frame filling the file, are needed.
 */
export function mpegSeconds(bytes: Bytes, start: number): { seconds: number; isAdts: boolean } | null {
  let at = start;
  let first: Frame | null = null;
  while (at >= 0 && at - start <= maxLeadingJunk) {
    first = confirmedFrameAt(bytes, at);
    if (first) break;
    at = bytes.indexOf(0xff, at + 1);
  }
  if (!first || at < 0) return null;
  if (!first.isAdts) {
    const counted = vbrFrameCount(bytes, at, first);
    if (counted > 0) return { seconds: (counted * first.samples) / first.sampleRate, isAdts: false };
  }
  let samples = 0;
  let frames = 0;
  while (at >= 0 && at < bytes.length) {
    const frame = frameAt(bytes, at);
    if (frame && frame.key === first.key && (at + frame.length <= bytes.length || frames === 0)) {
      samples += frame.samples;
      frames += 1;
      at += frame.length;
      continue;
    }
    // Damaged or trailing bytes (ID3v1/APE tags): look for the next frame the one after confirms,
    // within maxResyncGap bytes (the rest of a file that is junk that long is not audio).
    const limit = at + maxResyncGap;
    let next = bytes.indexOf(0xff, at + 1);
    while (next >= 0 && next <= limit) {
      const candidate = confirmedFrameAt(bytes, next);
      if (candidate && candidate.key === first.key) break;
      next = bytes.indexOf(0xff, next + 1);
    }
    at = next <= limit ? next : -1;
  }
  if (frames === 0) return null;
  return { seconds: samples / first.sampleRate, isAdts: first.isAdts };
}

/** Frames counted by a Xing/Info (LAME) or VBRI header in the first frame; 0 when there is none. */
function vbrFrameCount(bytes: Bytes, at: number, frame: Frame): number {
  const sideInfo = frame.version === 3 ? (frame.isMono ? 17 : 32) : frame.isMono ? 9 : 17;
  const xing = at + 4 + sideInfo;
  const tag = bytes.ascii(xing, 4);
  if (tag === 'Xing' || tag === 'Info') {
    const flags = bytes.u32be(xing + 4);
    return flags > 0 && flags & 0x01 ? Math.max(0, bytes.u32be(xing + 8)) : 0;
  }
  if (bytes.ascii(at + 36, 4) === 'VBRI') return Math.max(0, bytes.u32be(at + 36 + 14));
  return 0;
}
