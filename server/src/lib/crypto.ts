import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

const alphanumeric = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A random string of `length` characters from [a-zA-Z0-9], from a CSPRNG without modulo bias. */
export function randomKey(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphanumeric[randomInt(alphanumeric.length)];
  return out;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

export function hmacSha256(secret: string, value: string): string {
  return createHmac('sha256', secret).update(value).digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
