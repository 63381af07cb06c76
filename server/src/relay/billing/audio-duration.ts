/**
 * The playing time of an uploaded audio file, read from its bytes at the gateway (docs/relay.md
 * "Audio"): WAV (RIFF), MP3 (Xing/Info or VBRI header, else every frame walked), AAC in ADTS, Ogg
 * (Opus, Vorbis, FLAC, Speex), FLAC, MP4/M4A/MOV (mvhd, else mehd/mdhd) and WebM/Matroska (Info
 * Duration, else the last block's timestamp). The format is told by the bytes, never the file name.
 *
 * The bytes are the client's and may be anything: every read is bounds-checked, every loop moves
 * forward by at least one byte (so a walk is at most linear in the file's size), and anything the
 * parser cannot make sense of gives null — it never throws.
 */

export type AudioFormat = 'wav' | 'mp3' | 'aac' | 'ogg' | 'flac' | 'mp4' | 'webm';

export interface AudioDuration {
  seconds: number;
  format: AudioFormat;
}

/** Longest playing time believed (a day): a header claiming more is hostile or broken → null. */
export const maxAudioSeconds = 86_400;

export function readAudioDuration(data: Uint8Array): AudioDuration | null {
  try {
    const found = detect(new Bytes(data));
    if (!found || !Number.isFinite(found.seconds) || found.seconds <= 0 || found.seconds > maxAudioSeconds) return null;
    return found;
  } catch {
    return null; // a guard only: the readers below check their bounds
  }
}

/** Bounds-checked big/little-endian reads; out of range reads give -1 (checked by the callers). */
class Bytes {
  readonly length: number;
  private readonly buffer: Buffer;
  constructor(readonly data: Uint8Array) {
    this.length = data.length;
    this.buffer = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }

  has(at: number, count: number): boolean {
    return at >= 0 && count >= 0 && at + count <= this.length;
  }

  u8(at: number): number {
    return at >= 0 && at < this.length ? this.data[at]! : -1;
  }

  u16be(at: number): number {
    return this.has(at, 2) ? (this.data[at]! << 8) | this.data[at + 1]! : -1;
  }

  u16le(at: number): number {
    return this.has(at, 2) ? this.data[at]! | (this.data[at + 1]! << 8) : -1;
  }

  u32be(at: number): number {
    return this.has(at, 4) ? this.data[at]! * 0x1000000 + ((this.data[at + 1]! << 16) | (this.data[at + 2]! << 8) | this.data[at + 3]!) : -1;
  }

  u32le(at: number): number {
    return this.has(at, 4) ? this.data[at + 3]! * 0x1000000 + ((this.data[at + 2]! << 16) | (this.data[at + 1]! << 8) | this.data[at]!) : -1;
  }

  /** Unsigned 64-bit as a number (exact below 2^53, which is all that matters here); -1 out of range. */
  u64be(at: number): number {
    return this.has(at, 8) ? this.u32be(at) * 0x100000000 + this.u32be(at + 4) : -1;
  }

  u64le(at: number): number {
    return this.has(at, 8) ? this.u32le(at + 4) * 0x100000000 + this.u32le(at) : -1;
  }

  ascii(at: number, count: number): string {
    if (!this.has(at, count)) return '';
    let text = '';
    for (let i = 0; i < count; i += 1) text += String.fromCharCode(this.data[at + i]!);
    return text;
  }

  indexOf(value: number | Buffer, from: number): number {
    if (from >= this.length) return -1;
    return this.buffer.indexOf(value, Math.max(0, from));
  }
}

function detect(bytes: Bytes): AudioDuration | null {
  const magic = bytes.ascii(0, 4);
  if (magic === 'RIFF' && bytes.ascii(8, 4) === 'WAVE') return wrap(wavSeconds(bytes), 'wav');
  if (magic === 'OggS') return wrap(oggSeconds(bytes), 'ogg');
  if (bytes.u32be(0) === 0x1a45dfa3) return wrap(matroskaSeconds(bytes), 'webm');
  if (isMp4(bytes)) return wrap(mp4Seconds(bytes), 'mp4');
  const start = skipId3v2(bytes);
  if (bytes.ascii(start, 4) === 'fLaC') return wrap(flacSeconds(bytes, start), 'flac');
  const mpeg = mpegSeconds(bytes, start);
  return mpeg ? { seconds: mpeg.seconds, format: mpeg.isAdts ? 'aac' : 'mp3' } : null;
}

const wrap = (seconds: number | null, format: AudioFormat): AudioDuration | null => (seconds === null ? null : { seconds, format });

// ---------------------------------------------------------------------------------------------- WAV

/**
 * RIFF/WAVE: the `data` chunk's size (at most what is really there: a truncated upload or a streamed
 * WAV with a 0 or 0xFFFFFFFF size bills the bytes present) ÷ bytes per second. PCM uses sample rate ×
 * block align from `fmt `; compressed WAV its average byte rate, or the `fact` chunk's sample count.
 */
const chunkFmt = 0x666d7420; // "fmt "
const chunkFact = 0x66616374; // "fact"
const chunkData = 0x64617461; // "data"

function wavSeconds(bytes: Bytes): number | null {
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

// ------------------------------------------------------------------------------------- MP3 and AAC

/** Skips ID3v2 tags (several may follow one another) and any zero padding after them. */
function skipId3v2(bytes: Bytes): number {
  let at = 0;
  while (bytes.ascii(at, 3) === 'ID3' && bytes.has(at, 10)) {
    const flags = bytes.u8(at + 5);
    const size = ((bytes.u8(at + 6) & 0x7f) << 21) | ((bytes.u8(at + 7) & 0x7f) << 14) | ((bytes.u8(at + 8) & 0x7f) << 7) | (bytes.u8(at + 9) & 0x7f);
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
  const length = layer === 1
    ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4
    : Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
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
/** Bytes searched for the next frame after a damaged stretch. */
const maxResyncGap = 64 * 1024;

/**
 * MPEG audio or ADTS: the Xing/Info or VBRI frame count when the first frame carries one; else the
 * frames are walked (each a few hundred bytes) and their samples summed, resyncing on the next 0xFF
 * after a damaged stretch. At least two frames in a row, or one frame filling the file, are needed.
 */
function mpegSeconds(bytes: Bytes, start: number): { seconds: number; isAdts: boolean } | null {
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

// --------------------------------------------------------------------------------------------- FLAC

/** FLAC: STREAMINFO's total samples ÷ sample rate (0 total samples means unknown → null). */
function flacSeconds(bytes: Bytes, start: number): number | null {
  const info = start + 4;
  if ((bytes.u8(info) & 0x7f) !== 0 || !bytes.has(info + 4, 18)) return null;
  return streamInfoSeconds(bytes, info + 4);
}

/** The 34-byte STREAMINFO block body at `at`. */
function streamInfoSeconds(bytes: Bytes, at: number): number | null {
  if (!bytes.has(at, 18)) return null;
  const sampleRate = (bytes.u8(at + 10) << 12) | (bytes.u8(at + 11) << 4) | (bytes.u8(at + 12) >> 4);
  const total = (bytes.u8(at + 13) & 0x0f) * 0x100000000 + bytes.u32be(at + 14);
  if (sampleRate <= 0 || total <= 0) return null;
  return total / sampleRate;
}

// ---------------------------------------------------------------------------------------------- Ogg

const oggCapture = Buffer.from('OggS', 'latin1');

/**
 * Ogg: the codec of the first logical stream from its first packet (OpusHead: 48 kHz less the
 * pre-skip; Vorbis, Ogg FLAC, Speex: their sample rate), then the largest granule position of that
 * stream over every page. Pages are walked by their lengths, resyncing on the next "OggS".
 */
function oggSeconds(bytes: Bytes): number | null {
  const firstSegments = bytes.u8(26);
  if (bytes.u8(4) !== 0 || firstSegments < 1) return null;
  const serial = bytes.u32le(14);
  const packet = 27 + firstSegments;
  let rate = 0;
  let preSkip = 0;
  if (bytes.ascii(packet, 8) === 'OpusHead') {
    rate = 48000;
    preSkip = bytes.u16le(packet + 10);
  } else if (bytes.ascii(packet, 7) === '\x01vorbis') {
    rate = bytes.u32le(packet + 12);
  } else if (bytes.ascii(packet, 5) === '\x7fFLAC' && bytes.ascii(packet + 9, 4) === 'fLaC') {
    // 0x7F "FLAC", version (2), header count (2), "fLaC", a metadata block header (4), STREAMINFO.
    const info = packet + 17;
    rate = bytes.has(info, 18) ? (bytes.u8(info + 10) << 12) | (bytes.u8(info + 11) << 4) | (bytes.u8(info + 12) >> 4) : 0;
  } else if (bytes.ascii(packet, 8) === 'Speex   ') {
    rate = bytes.u32le(packet + 36);
  }
  if (rate <= 0) return null;
  let granule = -1;
  let at = 0;
  let lastPageEnd = 0;
  while (at >= 0 && bytes.has(at, 27)) {
    if (!isOggPage(bytes, at)) {
      // Resync on the next capture pattern, within maxResyncGap of the last good page.
      at = bytes.indexOf(oggCapture, at + 1);
      if (at - lastPageEnd > maxResyncGap) break;
      continue;
    }
    const segments = bytes.u8(at + 26);
    if (!bytes.has(at + 27, segments)) break;
    let size = 0;
    for (let i = 0; i < segments; i += 1) size += bytes.u8(at + 27 + i);
    // Granule -1 (all bits set): no packet ends on this page.
    const isNoGranule = bytes.u32le(at + 6) === 0xffffffff && bytes.u32le(at + 10) === 0xffffffff;
    const position = bytes.u64le(at + 6);
    if (bytes.u32le(at + 14) === serial && !isNoGranule && position > granule) granule = position;
    at += 27 + segments + size;
    lastPageEnd = at;
  }
  if (granule <= preSkip) return null;
  return (granule - preSkip) / rate;
}

/** "OggS" and stream structure version 0 at `at` (byte compares: this runs once per page). */
const isOggPage = (bytes: Bytes, at: number): boolean => bytes.u8(at) === 0x4f && bytes.u8(at + 1) === 0x67 && bytes.u8(at + 2) === 0x67
  && bytes.u8(at + 3) === 0x53 && bytes.u8(at + 4) === 0;

// ------------------------------------------------------------------------------------ MP4, M4A, MOV

/** A box type as its four bytes read big-endian. */
const fourCc = (type: string): number => ((type.charCodeAt(0) << 24) >>> 0) + (type.charCodeAt(1) << 16) + (type.charCodeAt(2) << 8) + type.charCodeAt(3);
const mp4TopLevel = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot', 'uuid'].map(fourCc));
const [moovBox, mvhdBox, mvexBox, mehdBox, trakBox, tkhdBox, mdiaBox, mdhdBox, trexBox, moofBox, trafBox, tfhdBox, trunBox] = [
  'moov', 'mvhd', 'mvex', 'mehd', 'trak', 'tkhd', 'mdia', 'mdhd', 'trex', 'moof', 'traf', 'tfhd', 'trun',
].map(fourCc) as [number, number, number, number, number, number, number, number, number, number, number, number, number];

const isMp4 = (bytes: Bytes): boolean => bytes.u32be(0) >= 8 && mp4TopLevel.has(bytes.u32be(4));

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
function mp4Seconds(bytes: Bytes): number | null {
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

// ------------------------------------------------------------------------------------ WebM (EBML)

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
function matroskaSeconds(bytes: Bytes): number | null {
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
