import { hmacSha256 as hmac, sha256Hex } from '../shared/crypto.js';

/** AWS Signature Version 4 (header form), written against AWS's published test suite. */
export interface SigV4Input {
  method: string;
  url: string;
  /** Headers to send and sign; `host` is added from the URL when absent. */
  headers: Record<string, string>;
  body: string | Uint8Array;
  region: string;
  service: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  now: Date;
}

export interface SigV4Result {
  /** The input headers plus host, x-amz-date, (x-amz-security-token) and authorization. */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
  authorization: string;
}

/** RFC 3986 encoding as SigV4 wants it: only A-Z a-z 0-9 - _ . ~ stay as they are. */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** yyyyMMddTHHmmssZ */
export const amzDateOf = (now: Date) =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region), service), "aws4_request"). */
export function signingKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  const kDate = hmac(`AWS4${secretAccessKey}`, date);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  return hmac(kService, 'aws4_request');
}

/**
 * Canonical URI for non-S3 services: each segment of the (already encoded) path is encoded again,
 * so a Bedrock model id `…-v2:0`, sent as `…-v2%3A0`, is signed as `…-v2%253A0`.
 */
function canonicalUri(pathname: string): string {
  if (pathname === '' || pathname === '/') return '/';
  return pathname
    .split('/')
    .map((segment) => uriEncode(segment))
    .join('/');
}

function canonicalQuery(search: URLSearchParams): string {
  return [...search.entries()]
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : av > bv ? 1 : 0) : ak < bk ? -1 : 1))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

export function signRequest(input: SigV4Input): SigV4Result {
  const url = new URL(input.url);
  const amzDate = amzDateOf(input.now);
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name.toLowerCase()] = value;
  headers.host ??= url.host;
  headers['x-amz-date'] = amzDate;
  if (input.sessionToken) headers['x-amz-security-token'] = input.sessionToken;

  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${String(headers[name]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    input.method.toUpperCase(),
    canonicalUri(url.pathname),
    canonicalQuery(url.searchParams),
    canonicalHeaders,
    signedHeaders,
    sha256Hex(input.body),
  ].join('\n');
  const scope = `${date}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = hmac(signingKey(input.secretAccessKey, date, input.region, input.service), stringToSign).toString('hex');
  const authorization = `AWS4-HMAC-SHA256 Credential=${input.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  headers.authorization = authorization;
  return { headers, canonicalRequest, stringToSign, signature, authorization };
}
