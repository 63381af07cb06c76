import { createHash, createHmac } from 'node:crypto';

/** Signing primitives shared by the signed providers (AWS SigV4, Tencent TC3, iFlytek, Zhipu JWT). */
export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/** HMAC-SHA256 of UTF-8 `data` under `key`, as raw bytes (key chains feed it back in). */
export const hmacSha256 = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

export const base64url = (value: string | Buffer): string => Buffer.from(value).toString('base64url');
