import { describe, expect, it } from 'vitest';
import { maxAudioSeconds, readAudioDuration } from '../../src/relay/billing/audio-duration.js';
import { audioSecondsToTokens } from '../../src/relay/billing/audio-tokens.js';
import {
  adtsFrames,
  box,
  encodeWithTools,
  flacHeader,
  garbage,
  id3v2,
  m4a,
  mp3Frames,
  oggOpus,
  oggPage,
  pcmWav,
  webm,
} from '../helpers/audio-bytes.js';

/** The duration read, or throws when the parser gave none (so a failure names the format). */
const secondsOf = (bytes: Uint8Array): number => {
  const found = readAudioDuration(bytes);
  if (!found) throw new Error('no duration read');
  return found.seconds;
};

/** ftyp and a moov whose mvhd says 0 (fragmented): track 1 at 16 kHz, 1,024 samples per sample by default. */
function fragmentedMp4Head(): Buffer {
  const ftyp = box('ftyp', Buffer.from('iso5\x00\x00\x02\x00iso5', 'latin1'));
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1_000, 12);
  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(1, 12);
  const mdhd = Buffer.alloc(24);
  mdhd.writeUInt32BE(16_000, 12);
  const trex = Buffer.alloc(24);
  trex.writeUInt32BE(1, 4);
  trex.writeUInt32BE(1_024, 12);
  return Buffer.concat([
    ftyp,
    box('moov', box('mvhd', mvhd), box('trak', box('tkhd', tkhd), box('mdia', box('mdhd', mdhd))), box('mvex', box('trex', trex))),
  ]);
}

describe('audio duration: WAV', () => {
  it('reads PCM WAV from its data size and format, mono and stereo', () => {
    expect(readAudioDuration(pcmWav(2.5))).toEqual({ seconds: 2.5, format: 'wav' });
    expect(secondsOf(pcmWav(1.25, { sampleRate: 44_100, channels: 2 }))).toBeCloseTo(1.25, 4);
    expect(secondsOf(new Uint8Array(pcmWav(0.5)))).toBe(0.5); // a plain Uint8Array too
  });

  it('bills only the samples present: a truncated file, and a streamed header with size 0 or 0xFFFFFFFF', () => {
    const full = pcmWav(2);
    expect(secondsOf(full.subarray(0, 44 + 16_000))).toBe(0.5);
    expect(secondsOf(pcmWav(1, { dataSize: 0 }))).toBe(1);
    expect(secondsOf(pcmWav(1, { dataSize: 0xffffffff }))).toBe(1);
    expect(secondsOf(pcmWav(1, { dataSize: 10_000_000 }))).toBe(1);
  });

  it('skips chunks before data (LIST) and pads odd chunk sizes', () => {
    const wav = pcmWav(1);
    const list = Buffer.concat([Buffer.from('LIST', 'latin1'), Buffer.from([5, 0, 0, 0]), Buffer.from('INFOx\0', 'latin1')]);
    const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
    expect(secondsOf(withList)).toBe(1);
  });
});

describe('audio duration: MP3 and AAC', () => {
  const framesSeconds = (count: number) => (count * 1152) / 44_100;

  it('walks CBR frames when there is no Xing header, after an ID3v2 tag and before an ID3v1 tag', () => {
    expect(readAudioDuration(mp3Frames(100))).toEqual({ seconds: framesSeconds(100), format: 'mp3' });
    const tagged = Buffer.concat([id3v2(1_000), mp3Frames(50), Buffer.concat([Buffer.from('TAG', 'latin1'), Buffer.alloc(125, 0x20)])]);
    expect(secondsOf(tagged)).toBeCloseTo(framesSeconds(50), 6);
  });

  it('uses the Xing frame count when the first frame carries one', () => {
    // Only 3 frames are present but the header says 2,000 (a VBR file's header is read, not the frames).
    expect(secondsOf(mp3Frames(3, { xingFrames: 2_000 }))).toBeCloseTo(framesSeconds(2_000), 6);
  });

  it('resyncs after a damaged stretch in the middle', () => {
    const damaged = Buffer.concat([mp3Frames(40), garbage(3_000, 11).fill(0x00, 0, 10), mp3Frames(60)]);
    const seconds = secondsOf(damaged);
    expect(seconds).toBeGreaterThanOrEqual(framesSeconds(100));
    expect(seconds).toBeLessThan(framesSeconds(103));
  });

  it('reads ADTS AAC frames', () => {
    expect(readAudioDuration(adtsFrames(64))).toEqual({ seconds: (64 * 1024) / 16_000, format: 'aac' });
  });
});

describe('audio duration: Ogg, FLAC, MP4, WebM', () => {
  it('reads Ogg Opus from the last granule less the pre-skip', () => {
    expect(readAudioDuration(oggOpus(3.25))).toEqual({ seconds: 3.25, format: 'ogg' });
  });

  it('reads Ogg Vorbis at its sample rate and ignores the pages of other streams', () => {
    const ident = Buffer.alloc(30);
    ident.write('\x01vorbis', 0, 'latin1');
    ident.writeUInt32LE(22_050, 12);
    const stream = Buffer.concat([
      oggPage(1, 0, 0n, ident, 0x02),
      oggPage(1, 1, 22_050n, Buffer.alloc(100)),
      oggPage(2, 0, 9_999_999n, Buffer.alloc(100)), // another logical stream
      oggPage(1, 2, 44_100n, Buffer.alloc(100), 0x04),
      oggPage(1, 3, 0xffffffffffffffffn, Buffer.alloc(10)), // no packet ends here
    ]);
    expect(secondsOf(stream)).toBe(2);
  });

  it('reads FLAC STREAMINFO (also after an ID3v2 tag); unknown total samples is null', () => {
    expect(readAudioDuration(flacHeader(44_100, 44_100 * 7))).toEqual({ seconds: 7, format: 'flac' });
    expect(secondsOf(Buffer.concat([id3v2(64), flacHeader(16_000, 40_000)]))).toBe(2.5);
    expect(readAudioDuration(flacHeader(44_100, 0))).toBeNull();
  });

  it('reads MP4/M4A mvhd (version 0 and 1), with moov after mdat', () => {
    expect(readAudioDuration(m4a(44_100, 44_100 * 12))).toEqual({ seconds: 12, format: 'mp4' });
    expect(secondsOf(m4a(1_000, 4_500, { version: 1 }))).toBe(4.5);
  });

  it('reads a fragmented MP4 from its trun sample durations', () => {
    const tfhd = Buffer.alloc(8);
    tfhd.writeUInt32BE(1, 4);
    const fragment = (count: number) => {
      const trun = Buffer.alloc(8);
      trun.writeUInt32BE(count, 4); // no per-sample durations: trex's default
      return Buffer.concat([box('moof', box('traf', box('tfhd', tfhd), box('trun', trun))), box('mdat', Buffer.alloc(500))]);
    };
    expect(secondsOf(Buffer.concat([fragmentedMp4Head(), fragment(100), fragment(56)]))).toBeCloseTo((156 * 1024) / 16_000, 6);
  });

  it('reads WebM Info Duration, or without one (a live recording) the last block time', () => {
    expect(readAudioDuration(webm({ durationMs: 4_250.5 }))).toEqual({ seconds: 4.2505, format: 'webm' });
    const clusters = [
      { timecode: 0, blocks: [0, 20, 40] },
      { timecode: 1_000, blocks: [0, 500, 980] },
    ];
    expect(secondsOf(webm({ clusters }))).toBeCloseTo(1.98, 6);
    expect(secondsOf(webm({ clusters, unknownSizes: true }))).toBeCloseTo(1.98, 6);
  });
});

describe('audio duration: files made by real encoders (ffmpeg or sox, when installed)', () => {
  const seconds = 3.5;
  const encoded = encodeWithTools(seconds, [
    { name: 'mp3 (CBR)', ffmpeg: ['-c:a', 'libmp3lame', '-b:a', '64k'], sox: ['mp3', '-C', '64'], file: 'cbr.mp3' },
    { name: 'mp3 (VBR)', ffmpeg: ['-c:a', 'libmp3lame', '-q:a', '4'], file: 'vbr.mp3' },
    { name: 'mp3 (no Xing header)', ffmpeg: ['-c:a', 'libmp3lame', '-b:a', '32k', '-write_xing', '0'], file: 'plain.mp3' },
    { name: 'ogg (Vorbis)', ffmpeg: ['-c:a', 'libvorbis'], sox: ['vorbis'], file: 'a.ogg' },
    { name: 'ogg (Opus)', ffmpeg: ['-c:a', 'libopus'], file: 'a.opus' },
    { name: 'flac', ffmpeg: ['-c:a', 'flac'], sox: ['flac'], file: 'a.flac' },
    { name: 'm4a (AAC)', ffmpeg: ['-c:a', 'aac'], file: 'a.m4a' },
    { name: 'mp4 (fragmented)', ffmpeg: ['-c:a', 'aac', '-movflags', 'frag_keyframe+empty_moov'], file: 'frag.mp4' },
    { name: 'webm (Opus)', ffmpeg: ['-c:a', 'libopus'], file: 'a.webm' },
    { name: 'aac (ADTS)', ffmpeg: ['-c:a', 'aac', '-f', 'adts'], file: 'a.aac' },
    { name: 'wav', ffmpeg: ['-c:a', 'pcm_s16le'], sox: ['wav'], file: 'a.wav' },
  ]);

  for (const file of encoded) {
    it(`${file.format}${file.tool ? ` by ${file.tool}` : ''}`, (ctx) => {
      if (!file.bytes) ctx.skip(file.skipReason);
      // Encoders add up to a frame or two of priming and padding (MP3 1,152 samples, AAC 1,024).
      expect(secondsOf(file.bytes!)).toBeGreaterThan(seconds - 0.05);
      expect(secondsOf(file.bytes!)).toBeLessThan(seconds + 0.2);
    });
  }

  it('never throws and stays bounded on every truncation of every encoded file', () => {
    const files = encoded.flatMap((file) => (file.bytes ? [file.bytes] : []));
    files.push(
      pcmWav(1),
      mp3Frames(20),
      oggOpus(1),
      m4a(1_000, 2_000),
      webm({ durationMs: 1_000 }),
      flacHeader(8_000, 8_000),
      adtsFrames(10),
    );
    for (const bytes of files) {
      const full = secondsOf(bytes);
      for (let cut = 0; cut < bytes.length; cut += Math.max(1, Math.floor(bytes.length / 97))) {
        const found = readAudioDuration(bytes.subarray(0, cut));
        // A cut file is read as at most the whole (container headers may state the full length).
        if (found) expect(found.seconds).toBeLessThanOrEqual(full + 0.05);
      }
    }
  });
});

describe('audio duration: garbage and hostile bytes', () => {
  it('gives null for empty, short, text and random bytes', () => {
    for (const bytes of [
      Buffer.alloc(0),
      Buffer.from('RIFF'),
      Buffer.from('hello, this is not audio at all'),
      Buffer.alloc(10_000),
      Buffer.alloc(10_000, 0xff),
    ]) {
      expect(readAudioDuration(bytes)).toBeNull();
    }
    for (let seed = 1; seed <= 50; seed += 1) expect(readAudioDuration(garbage(4_096, seed))).toBeNull();
    expect(readAudioDuration(Buffer.from('RIFFfakewav'))).toBeNull();
  });

  it('gives null for magic bytes followed by garbage', () => {
    const prefixes = [
      'RIFF\x00\x00\x00\x00WAVE',
      'OggS',
      '\x1a\x45\xdf\xa3',
      '\x00\x00\x00\x18ftyp',
      'fLaC',
      'ID3\x04\x00\x00\x00\x00\x00\x00',
    ];
    for (const prefix of prefixes) {
      for (let seed = 1; seed <= 10; seed += 1) {
        expect(readAudioDuration(Buffer.concat([Buffer.from(prefix, 'latin1'), garbage(2_000, seed)]))).toBeNull();
      }
    }
  });

  it('rejects stated durations beyond a day and impossible sizes', () => {
    expect(readAudioDuration(flacHeader(1, 2 ** 35))).toBeNull();
    expect(readAudioDuration(m4a(1, 0xfffffffe))).toBeNull();
    expect(readAudioDuration(mp3Frames(2, { xingFrames: 0xffffffff }))).toBeNull();
    expect(maxAudioSeconds).toBe(86_400);
    // An MP4 box whose 64-bit size points far past the end, and one smaller than its own header.
    const huge = Buffer.concat([
      box('ftyp', Buffer.from('isom', 'latin1')),
      Buffer.from([0, 0, 0, 1]),
      Buffer.from('moov', 'latin1'),
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    ]);
    expect(readAudioDuration(huge)).toBeNull();
    expect(
      readAudioDuration(Buffer.concat([box('ftyp', Buffer.alloc(4)), Buffer.from([0, 0, 0, 4]), Buffer.from('moov', 'latin1')])),
    ).toBeNull();
    // A WAV whose fmt says 0 Hz.
    const zeroRate = pcmWav(1);
    zeroRate.writeUInt32LE(0, 24);
    expect(readAudioDuration(zeroRate)).toBeNull();
  });

  it('reads 25 MB of hostile bytes quickly (each walk is linear)', () => {
    const size = 25 * 1024 * 1024;
    const cases = [
      // Two real MP3 frames then 0xFF everywhere: every byte is a resync candidate.
      Buffer.concat([mp3Frames(2), Buffer.alloc(size, 0xff)]),
      Buffer.concat([mp3Frames(2), garbage(size, 3)]),
      // Ogg pages of the largest size claim, then "OggS" repeated with no valid pages.
      Buffer.concat([oggOpus(1), Buffer.from('OggS'.repeat(size / 4), 'latin1')]),
      // EBML elements of size 0 one after another (the slowest forward walk).
      Buffer.concat([webm({}), Buffer.from('\xec\x80'.repeat(size / 2), 'latin1')]),
      // A fragmented MP4 head followed by millions of empty 8-byte boxes.
      Buffer.concat([fragmentedMp4Head(), Buffer.from('\x00\x00\x00\x08free'.repeat(size / 8), 'latin1')]),
      // Millions of WAV chunks of size 0 before no data.
      Buffer.concat([pcmWav(0.001).subarray(0, 36), Buffer.from('junk\x00\x00\x00\x00'.repeat(size / 8), 'latin1')]),
    ];
    for (const bytes of cases) {
      const started = performance.now();
      readAudioDuration(bytes);
      expect(performance.now() - started).toBeLessThan(3_000);
    }
  });
});

describe('audio seconds to tokens', () => {
  it('counts started seconds at 1,000 tokens a minute', () => {
    expect(audioSecondsToTokens(60)).toBe(1_000);
    expect(audioSecondsToTokens(9)).toBe(150);
    expect(audioSecondsToTokens(8.2)).toBe(150);
    expect(audioSecondsToTokens(0.2)).toBe(17);
    expect(audioSecondsToTokens(3_600)).toBe(60_000);
    for (const bad of [0, -3, Number.NaN, Number.POSITIVE_INFINITY]) expect(audioSecondsToTokens(bad)).toBe(0);
    expect(audioSecondsToTokens(1e12)).toBe(1_000_000_000);
    expect(audioSecondsToTokens(1e300)).toBe(1_000_000_000);
  });
});
