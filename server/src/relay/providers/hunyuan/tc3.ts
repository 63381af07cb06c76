import { hmacSha256, sha256Hex } from '../shared/crypto.js';

/**
 * Tencent Cloud API 3.0 signature v3 (TC3-HMAC-SHA256), POST with a JSON body, generic over the
 * service (hunyuan, cvm, ...). Signed headers: content-type, host and x-tc-action, as the docs'
 * worked example (https://cloud.tencent.com/document/api/213/30654).
 */
export interface Tc3Input {
  secretId: string;
  secretKey: string;
  service: string;
  /** The request's Host (the base URL's host, port included when not the default). */
  host: string;
  action: string;
  /** Unix seconds; the credential date is its UTC day. */
  timestamp: number;
  /** The exact body text that is sent. */
  body: string;
  contentType: string;
}

export interface Tc3Signature {
  canonicalRequest: string;
  stringToSign: string;
  /** UTC `YYYY-MM-DD` of the timestamp. */
  date: string;
  signature: string;
  authorization: string;
}

export const tc3SignedHeaders = 'content-type;host;x-tc-action';

export const tc3DateOf = (timestamp: number): string => new Date(timestamp * 1000).toISOString().slice(0, 10);

/** SecretSigning = HMAC(HMAC(HMAC("TC3" + SecretKey, date), service), "tc3_request"). */
export function tc3SigningKey(secretKey: string, date: string, service: string): Buffer {
  return hmacSha256(hmacSha256(hmacSha256(`TC3${secretKey}`, date), service), 'tc3_request');
}

export function signTc3(input: Tc3Input): Tc3Signature {
  const canonicalHeaders = `content-type:${input.contentType}\nhost:${input.host}\nx-tc-action:${input.action.toLowerCase()}\n`;
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, tc3SignedHeaders, sha256Hex(input.body)].join('\n');
  const date = tc3DateOf(input.timestamp);
  const scope = `${date}/${input.service}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(input.timestamp), scope, sha256Hex(canonicalRequest)].join('\n');
  const signature = hmacSha256(tc3SigningKey(input.secretKey, date, input.service), stringToSign).toString('hex');
  const authorization = `TC3-HMAC-SHA256 Credential=${input.secretId}/${scope}, SignedHeaders=${tc3SignedHeaders}, Signature=${signature}`;
  return { canonicalRequest, stringToSign, date, signature, authorization };
}
