import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Tencent Cloud API 3.0 endpoint for Hunyuan tests. It checks every request's
 * TC3-HMAC-SHA256 signature the way Tencent does, recomputed here with node:crypto from what it
 * received (Host, Content-Type, X-TC-Action, X-TC-Timestamp, the raw body) and its own copy of the
 * secrets, never with the adapter's code. A bad signature or unknown SecretId is answered, like
 * Tencent, with HTTP 200 and `Response.Error` AuthFailure.*; otherwise the next queued reply.
 */
export interface HunyuanRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  bodyText: string;
  json: any;
  /** The signature check's verdict: null when valid, else the AuthFailure code answered. */
  authFailure: string | null;
}

export interface HunyuanReply {
  status?: number;
  contentType?: string;
  body: string;
}

export interface HunyuanUpstream {
  url: string;
  requests: HunyuanRequest[];
  reply(next: HunyuanReply): void;
  close(): Promise<void>;
}

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const mac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** The AuthFailure code Tencent would answer for this request, or null when its signature holds. */
export function checkTc3(
  headers: http.IncomingHttpHeaders,
  bodyText: string,
  secrets: Record<string, string>,
  maxSkewSeconds: number | null,
): string | null {
  const match =
    /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      String(headers.authorization ?? ''),
    );
  if (!match) return 'AuthFailure.InvalidAuthorization';
  const [, secretId, date, service, signedHeaders, signature] = match as unknown as [string, string, string, string, string, string];
  const secretKey = secrets[secretId];
  if (secretKey === undefined) return 'AuthFailure.SecretIdNotFound';
  const timestamp = Number(headers['x-tc-timestamp']);
  if (!Number.isInteger(timestamp)) return 'AuthFailure.InvalidAuthorization';
  if (maxSkewSeconds !== null && Math.abs(Date.now() / 1000 - timestamp) > maxSkewSeconds) return 'AuthFailure.SignatureExpire';
  if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date) return 'AuthFailure.SignatureFailure';
  const names = signedHeaders.split(';');
  const canonicalHeaders = names
    .map(
      (name) =>
        `${name}:${String(headers[name] ?? '')
          .trim()
          .toLowerCase()}\n`,
    )
    .join('');
  const canonical = `POST\n/\n\n${canonicalHeaders}\n${signedHeaders}\n${hex(bodyText)}`;
  const toSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${hex(canonical)}`;
  const key = mac(mac(mac(`TC3${secretKey}`, date), service), 'tc3_request');
  return mac(key, toSign).toString('hex') === signature ? null : 'AuthFailure.SignatureFailure';
}

export const tencentError = (code: string, message: string) =>
  JSON.stringify({ Response: { Error: { Code: code, Message: message }, RequestId: 'req-error-1' } });

export async function startHunyuanUpstream(
  secrets: Record<string, string>,
  options: { maxSkewSeconds?: number | null } = {},
): Promise<HunyuanUpstream> {
  const requests: HunyuanRequest[] = [];
  const queue: HunyuanReply[] = [];
  const maxSkew = options.maxSkewSeconds === undefined ? 300 : options.maxSkewSeconds;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const bodyText = Buffer.concat(parts).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(bodyText);
      } catch {
        json = null;
      }
      const authFailure =
        req.method === 'POST' && req.url === '/' ? checkTc3(req.headers, bodyText, secrets, maxSkew) : 'AuthFailure.InvalidAuthorization';
      requests.push({ url: req.url ?? '', headers: req.headers, bodyText, json, authFailure });
      const next = authFailure
        ? {
            status: 200,
            contentType: 'application/json',
            body: tencentError(authFailure, 'The provided credentials could not be validated.'),
          }
        : (queue.shift() ?? { status: 500, contentType: 'text/plain', body: 'no reply queued' });
      res.writeHead(next.status ?? 200, { 'content-type': next.contentType ?? 'application/json' });
      // Streams go out in small pieces so readers see frames split across chunks.
      const bytes = Buffer.from(next.body, 'utf8');
      for (let at = 0; at < bytes.length; at += 37) res.write(bytes.subarray(at, at + 37));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reply: (next) => queue.push(next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
