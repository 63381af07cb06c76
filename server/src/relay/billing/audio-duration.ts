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

import { Bytes } from './audio-formats/bytes.js';
import { flacSeconds } from './audio-formats/flac.js';
import { matroskaSeconds } from './audio-formats/matroska.js';
import { isMp4, mp4Seconds } from './audio-formats/mp4.js';
import { mpegSeconds, skipId3v2 } from './audio-formats/mpeg.js';
import { oggSeconds } from './audio-formats/ogg.js';
import { wavSeconds } from './audio-formats/wav.js';

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
    return null; // a guard only: the readers in audio-formats/ check their bounds
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
