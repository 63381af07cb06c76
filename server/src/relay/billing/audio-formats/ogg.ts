import { maxResyncGap, type Bytes } from './bytes.js';
import { streamInfoRate } from './flac.js';

const oggCapture = Buffer.from('OggS', 'latin1');

/**
 * Ogg: the codec of the first logical stream from its first packet (OpusHead: 48 kHz less the
 * pre-skip; Vorbis, Ogg FLAC, Speex: their sample rate), then the largest granule position of that
 * stream over every page. Pages are walked by their lengths, resyncing on the next "OggS".
 */
export function oggSeconds(bytes: Bytes): number | null {
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
    rate = streamInfoRate(bytes, packet + 17);
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
const isOggPage = (bytes: Bytes, at: number): boolean =>
  bytes.u8(at) === 0x4f && bytes.u8(at + 1) === 0x67 && bytes.u8(at + 2) === 0x67 && bytes.u8(at + 3) === 0x53 && bytes.u8(at + 4) === 0;
