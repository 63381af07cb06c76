import { hmacSha256 } from '../shared/crypto.js';

/**
 * iFlytek's signed WebSocket URL (HMAC-SHA256 over `host`, `date` and the request line):
 * `signature = base64(HMAC-SHA256(APISecret, "host: {host}\ndate: {date}\nGET {path} HTTP/1.1"))`,
 * `authorization = base64('api_key="{APIKey}", algorithm="hmac-sha256", headers="host date request-line", signature="{signature}"')`,
 * sent as the query `?authorization=…&date=…&host=…`. The server allows about 300 s of clock skew.
 */
export interface SparkSignature {
  stringToSign: string;
  signature: string;
  authorization: string;
}

export function signSparkRequest(apiKey: string, apiSecret: string, host: string, path: string, date: string): SparkSignature {
  const stringToSign = `host: ${host}\ndate: ${date}\nGET ${path} HTTP/1.1`;
  const signature = hmacSha256(apiSecret, stringToSign).toString('base64');
  const origin = `api_key="${apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`;
  return { stringToSign, signature, authorization: Buffer.from(origin, 'utf8').toString('base64') };
}

/** The signed URL for `{base}{path}` at `nowMs` (RFC 1123 date). */
export function signedSparkUrl(baseURL: string, path: string, apiKey: string, apiSecret: string, nowMs: number): string {
  const base = new URL(baseURL.trim().replace(/\/+$/, '') + path);
  const date = new Date(nowMs).toUTCString();
  const { authorization } = signSparkRequest(apiKey, apiSecret, base.host, base.pathname, date);
  const query = new URLSearchParams({ authorization, date, host: base.host });
  return `${base.origin}${base.pathname}?${query.toString()}`;
}
