import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Audio files made by the tests: PCM WAV and the container structures of the other formats written
 * byte by byte (frames, pages, boxes, elements as their specifications lay them out), and, when
 * ffmpeg or sox is installed, real encoder output.
 */

/** A PCM WAV: a 440 Hz tone of `seconds`, 16-bit, with the standard 44-byte header. */
export function pcmWav(seconds: number, options: { sampleRate?: number; channels?: number; dataSize?: number } = {}): Buffer {
  const sampleRate = options.sampleRate ?? 16_000;
  const channels = options.channels ?? 1;
  const frames = Math.round(seconds * sampleRate);
  const blockAlign = channels * 2;
  const samples = Buffer.alloc(frames * blockAlign);
  for (let i = 0; i < frames; i += 1) {
    const value = Math.round(Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 12_000);
    for (let c = 0; c < channels; c += 1) samples.writeInt16LE(value, i * blockAlign + c * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(options.dataSize ?? samples.length, 40);
  return Buffer.concat([header, samples]);
}

/** `count` MPEG-1 Layer III frames, 128 kbit/s, 44.1 kHz, joint stereo (417 or 418 bytes, 1,152 samples each). */
export function mp3Frames(count: number, options: { xingFrames?: number } = {}): Buffer {
  const frames: Buffer[] = [];
  let carried = 0;
  for (let i = 0; i < count; i += 1) {
    // 144 × 128000 / 44100 = 417.96: the padding bit adds the byte the fraction owes.
    carried += (144 * 128_000) % 44_100;
    const padding = carried >= 44_100 ? 1 : 0;
    if (padding) carried -= 44_100;
    const frame = Buffer.alloc(417 + padding);
    frame[0] = 0xff;
    frame[1] = 0xfb; // MPEG-1, layer III, no CRC
    frame[2] = 0x90 | (padding << 1); // 128 kbit/s, 44.1 kHz
    frame[3] = 0x44; // joint stereo
    if (i === 0 && options.xingFrames !== undefined) {
      frame.write('Xing', 4 + 32, 'latin1');
      frame.writeUInt32BE(0x01, 4 + 36);
      frame.writeUInt32BE(options.xingFrames, 4 + 40);
    }
    frames.push(frame);
  }
  return Buffer.concat(frames);
}

/** An ID3v2.4 tag of `size` bytes of body (syncsafe size). */
export function id3v2(size: number): Buffer {
  const tag = Buffer.alloc(10 + size);
  tag.write('ID3', 0, 'latin1');
  tag[3] = 4;
  tag[6] = (size >> 21) & 0x7f;
  tag[7] = (size >> 14) & 0x7f;
  tag[8] = (size >> 7) & 0x7f;
  tag[9] = size & 0x7f;
  return tag;
}

/** `count` ADTS AAC-LC frames at 16 kHz, mono, 100 bytes each (1,024 samples each). */
export function adtsFrames(count: number): Buffer {
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i += 1) {
    const frame = Buffer.alloc(100);
    frame[0] = 0xff;
    frame[1] = 0xf1; // MPEG-4, layer 0, no CRC
    frame[2] = (1 << 6) | (8 << 2); // AAC LC, 16 kHz
    frame[3] = (1 << 6) | ((100 >> 11) & 0x03); // 1 channel
    frame[4] = (100 >> 3) & 0xff;
    frame[5] = ((100 & 0x07) << 5) | 0x1f;
    frame[6] = 0xfc; // one raw data block
    frames.push(frame);
  }
  return Buffer.concat(frames);
}

/** The 34-byte FLAC STREAMINFO body: mono, 16 bits per sample. */
function streamInfo(sampleRate: number, totalSamples: number): Buffer {
  const info = Buffer.alloc(34);
  info.writeUInt16BE(4096, 0);
  info.writeUInt16BE(4096, 2);
  // Bytes 10–17: sample rate (20 bits), channels − 1 (3), bits per sample − 1 (5), total samples (36).
  const bitsLessOne = 15;
  info[10] = (sampleRate >> 12) & 0xff;
  info[11] = (sampleRate >> 4) & 0xff;
  info[12] = ((sampleRate & 0x0f) << 4) | (0 << 1) | (bitsLessOne >> 4);
  info[13] = ((bitsLessOne & 0x0f) << 4) | (Math.floor(totalSamples / 0x100000000) & 0x0f);
  info.writeUInt32BE(totalSamples % 0x100000000, 14);
  return info;
}

/** A FLAC stream header: "fLaC" and its (last) STREAMINFO block; no frames follow. */
export function flacHeader(sampleRate: number, totalSamples: number): Buffer {
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), Buffer.from([0x80, 0, 0, 34]), streamInfo(sampleRate, totalSamples)]);
}

/** One Ogg page (CRC left 0: readers of durations do not check it). */
export function oggPage(serial: number, sequence: number, granule: bigint, packet: Buffer, headerType = 0): Buffer {
  const segments: number[] = [];
  let left = packet.length;
  while (left >= 255) {
    segments.push(255);
    left -= 255;
  }
  segments.push(left);
  const header = Buffer.alloc(27 + segments.length);
  header.write('OggS', 0, 'latin1');
  header[5] = headerType;
  header.writeBigUInt64LE(granule, 6);
  header.writeUInt32LE(serial, 14);
  header.writeUInt32LE(sequence, 18);
  header[26] = segments.length;
  segments.forEach((size, i) => (header[27 + i] = size));
  return Buffer.concat([header, packet]);
}

/** An Ogg Opus stream: OpusHead (pre-skip 312), OpusTags, then audio pages up to `seconds`. */
export function oggOpus(seconds: number): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(16_000, 12);
  const tags = Buffer.from('OpusTags\x00\x00\x00\x00\x00\x00\x00\x00', 'latin1');
  const pages = [oggPage(7, 0, 0n, head, 0x02), oggPage(7, 1, 0n, tags)];
  const total = 312 + Math.round(seconds * 48_000);
  const perPage = 48_000; // a second of 20 ms packets per page
  let granule = 312;
  for (let sequence = 2; granule < total; sequence += 1) {
    granule = Math.min(total, granule + perPage);
    pages.push(oggPage(7, sequence, BigInt(granule), Buffer.alloc(300, 0x5a), granule === total ? 0x04 : 0));
  }
  return Buffer.concat(pages);
}

/** An MP4 box. */
export function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

/** An M4A layout: ftyp, mdat (audio bytes first, as most encoders write), then moov with an mvhd. */
export function m4a(timescale: number, duration: number, options: { version?: 0 | 1 } = {}): Buffer {
  const version = options.version ?? 0;
  const mvhd = Buffer.alloc(version === 1 ? 112 : 100);
  mvhd[0] = version;
  if (version === 1) {
    mvhd.writeUInt32BE(timescale, 20);
    mvhd.writeBigUInt64BE(BigInt(duration), 24);
  } else {
    mvhd.writeUInt32BE(timescale, 12);
    mvhd.writeUInt32BE(duration, 16);
  }
  const ftyp = box('ftyp', Buffer.from('M4A \x00\x00\x02\x00isomiso2', 'latin1'));
  return Buffer.concat([ftyp, box('mdat', Buffer.alloc(2_000, 0x21)), box('moov', box('mvhd', mvhd))]);
}

/** An EBML element: its ID bytes, an 8-byte size (or "unknown" when size is null), its body. */
export function ebml(id: number, body: Buffer | null, options: { unknownSize?: boolean } = {}): Buffer {
  const idBytes: number[] = [];
  for (let rest = id; rest > 0; rest = Math.floor(rest / 256)) idBytes.unshift(rest & 0xff);
  const size = Buffer.alloc(8);
  if (options.unknownSize) size.fill(0xff, 0, 8).writeUInt8(0x01, 0);
  else size.writeBigUInt64BE(BigInt(body?.length ?? 0) | (1n << 56n));
  return Buffer.concat([Buffer.from(idBytes), size, body ?? Buffer.alloc(0)]);
}

const uint = (value: number, bytes = 4): Buffer => {
  const out = Buffer.alloc(bytes);
  out.writeUIntBE(value, 0, bytes);
  return out;
};

/** A WebM file: EBML header, Segment (Info with TimecodeScale 1 ms and, when given, Duration in ms), Clusters. */
export function webm(options: {
  durationMs?: number;
  clusters?: Array<{ timecode: number; blocks: number[] }>;
  unknownSizes?: boolean;
}): Buffer {
  const header = ebml(0x1a45dfa3, ebml(0x4282, Buffer.from('webm', 'latin1')));
  const infoParts = [ebml(0x2ad7b1, uint(1_000_000, 3))];
  if (options.durationMs !== undefined) {
    const duration = Buffer.alloc(8);
    duration.writeDoubleBE(options.durationMs);
    infoParts.push(ebml(0x4489, duration));
  }
  const clusters = (options.clusters ?? []).map(({ timecode, blocks }) => {
    const parts = [ebml(0xe7, uint(timecode, 4))];
    for (const offset of blocks) {
      const block = Buffer.alloc(4 + 40, 0x33);
      block[0] = 0x81; // track 1
      block.writeInt16BE(offset, 1);
      block[3] = 0x80; // keyframe
      parts.push(ebml(0xa3, block));
    }
    const body = Buffer.concat(parts);
    return options.unknownSizes ? Buffer.concat([ebml(0x1f43b675, null, { unknownSize: true }), body]) : ebml(0x1f43b675, body);
  });
  const segmentBody = Buffer.concat([ebml(0x1549a966, Buffer.concat(infoParts)), ...clusters]);
  const segment = options.unknownSizes
    ? Buffer.concat([ebml(0x18538067, null, { unknownSize: true }), segmentBody])
    : ebml(0x18538067, segmentBody);
  return Buffer.concat([header, segment]);
}

/** A deterministic byte generator (xorshift32) for garbage that is the same on every run. */
export function garbage(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i += 1) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out[i] = state & 0xff;
  }
  return out;
}

// ------------------------------------------------------------------------------ real encoders

const has = (command: string, args: string[]): boolean => {
  try {
    execFileSync(command, args, { stdio: 'pipe', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
};

export interface Encoded {
  format: string;
  /** Which tool made it, or why none could. */
  tool: string | null;
  skipReason?: string;
  bytes?: Buffer;
}

/**
 * A `seconds`-long 440 Hz tone encoded by ffmpeg (or sox) into each format whose encoder is on this
 * machine; a format with no encoder comes back with its skip reason.
 */
export function encodeWithTools(
  seconds: number,
  formats: Array<{ name: string; ffmpeg?: string[]; sox?: string[]; file: string }>,
): Encoded[] {
  const ffmpegEncoders = has('ffmpeg', ['-hide_banner', '-version'])
    ? execFileSync('ffmpeg', ['-hide_banner', '-encoders'], { encoding: 'utf8', timeout: 10_000 })
    : '';
  const soxFormats = has('sox', ['--version']) ? execFileSync('sox', ['-h'], { encoding: 'utf8', timeout: 10_000 }) : '';
  const dir = mkdtempSync(path.join(tmpdir(), 'mg-audio-'));
  try {
    return formats.map((format): Encoded => {
      try {
        return encodeOne(dir, seconds, format, ffmpegEncoders, soxFormats);
      } catch (error) {
        return {
          format: format.name,
          tool: null,
          skipReason: `the encoder failed on this machine: ${(error as Error).message.split('\n')[0]}`,
        };
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function encodeOne(
  dir: string,
  seconds: number,
  format: { name: string; ffmpeg?: string[]; sox?: string[]; file: string },
  ffmpegEncoders: string,
  soxFormats: string,
): Encoded {
  const out = path.join(dir, format.file);
  const encoder = format.ffmpeg?.[format.ffmpeg.indexOf('-c:a') + 1];
  if (format.ffmpeg && encoder && new RegExp(`\\s${encoder}\\s`).test(ffmpegEncoders)) {
    execFileSync(
      'ffmpeg',
      [
        '-loglevel',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        `sine=frequency=440:duration=${seconds}`,
        '-ac',
        '1',
        '-ar',
        '16000',
        ...format.ffmpeg,
        out,
      ],
      { timeout: 30_000 },
    );
    return { format: format.name, tool: `ffmpeg ${encoder}`, bytes: readFileSync(out) };
  }
  const soxType = format.sox?.[0];
  if (format.sox && soxType && soxFormats.includes(` ${soxType} `)) {
    // sox -n [output options] OUT synth …: the options after the type are the output's (e.g. -C 64).
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', ...format.sox.slice(1), out, 'synth', String(seconds), 'sine', '440'], {
      timeout: 30_000,
    });
    return { format: format.name, tool: `sox ${soxType}`, bytes: readFileSync(out) };
  }
  const wanted = [format.ffmpeg ? `ffmpeg with the ${encoder} encoder` : null, format.sox ? `sox with ${soxType} support` : null]
    .filter(Boolean)
    .join(' or ');
  return { format: format.name, tool: null, skipReason: `no encoder for ${format.name} on this machine (needs ${wanted})` };
}
