import { serializeRequest } from '../../../src/relay/providers/upstream-request.js';
import type { UpstreamRequest } from '../../../src/relay/providers/types.js';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FixtureRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  /** The body parsed as JSON (null when it is not JSON). */
  json: any;
}

export interface FixtureReply {
  status: number;
  contentType: string;
  body: string | Buffer;
  headers?: Record<string, string>;
}

/** A local upstream answering every request with the next queued fixture reply; records each request. */
export interface FixtureUpstream {
  url: string;
  requests: FixtureRequest[];
  reply(next: FixtureReply): void;
  close(): Promise<void>;
}

const fixturesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '__fixtures__');

/** Reads server/test/providers/__fixtures__/<provider>/<name> as text. */
export const readFixture = (provider: string, name: string): string => readFileSync(path.join(fixturesDir, provider, name), 'utf8');

export async function startFixtureUpstream(): Promise<FixtureUpstream> {
  const requests: FixtureRequest[] = [];
  const queue: FixtureReply[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const rawBody = Buffer.concat(parts);
      let json: any = null;
      try {
        json = JSON.parse(rawBody.toString('utf8'));
      } catch {
        json = null;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawBody, json });
      const next = queue.shift() ?? { status: 500, contentType: 'text/plain', body: 'no fixture queued' };
      res.writeHead(next.status, { 'content-type': next.contentType, ...next.headers });
      // Streams go out in small pieces so readers see frames split across chunks.
      const bytes = Buffer.isBuffer(next.body) ? next.body : Buffer.from(next.body, 'utf8');
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

/** Sends an adapter-built request with undici, as the relay will: objects as JSON, text and bytes as they are. */
export async function sendUpstream(built: UpstreamRequest) {
  const { request } = await import('undici');
  const { headers, payload } = serializeRequest({ ...built, headers: { ...built.headers } });
  const response = await request(built.url, { method: built.method ?? 'POST', headers, body: payload as string | undefined });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, bytes, text: bytes.toString('utf8') };
}
