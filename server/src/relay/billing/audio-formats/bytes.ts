/**
 * The client's audio bytes behind bounds-checked reads: every reader of audio-duration.ts goes
 * through this, so a hostile length or offset reads -1 or '' instead of throwing.
 */

/** Bounds-checked big/little-endian reads; out of range reads give -1 (checked by the callers). */
export class Bytes {
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
    return this.has(at, 4)
      ? this.data[at]! * 0x1000000 + ((this.data[at + 1]! << 16) | (this.data[at + 2]! << 8) | this.data[at + 3]!)
      : -1;
  }

  u32le(at: number): number {
    return this.has(at, 4)
      ? this.data[at + 3]! * 0x1000000 + ((this.data[at + 2]! << 16) | (this.data[at + 1]! << 8) | this.data[at]!)
      : -1;
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

/** Bytes searched for the next frame or page after a damaged stretch. */
export const maxResyncGap = 64 * 1024;
