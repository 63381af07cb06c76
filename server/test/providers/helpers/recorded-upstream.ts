import { readFileSync } from 'node:fs';
import http from 'node:http';
import { serializeRequest } from '../../../src/relay/providers/upstream-request.js';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import type { StreamEvent, UpstreamRequest, UpstreamTarget } from '../../../src/relay/providers/types.js';

const fixturesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '__fixtures__');

/** Reads `__fixtures__/<slug>/<name>` as text. */
export function readFixture(slug: string, name: string): string {
  return readFileSync(path.join(fixturesDir, slug, name), 'utf8');
}

export function readJsonFixture<T = Record<string, unknown>>(slug: string, name: string): T {
  return JSON.parse(readFixture(slug, name)) as T;
}

export interface ReceivedRequest {
  method: string;
  /** Path with the query string. */
  url: string;
  headers: http.IncomingHttpHeaders;
  bodyText: string;
  json: any;
}

export interface RecordedReply {
  status?: number;
  contentType?: string;
  body: string;
}

/**
 * A local upstream that records every request and answers with the reply queued for it (in order;
 * the last reply repeats). Replies are recorded provider answers from `__fixtures__`.
 */
export interface RecordedUpstream {
  baseURL: string;
  received: ReceivedRequest[];
  reply(next: RecordedReply): void;
  close(): Promise<void>;
}

export async function startRecordedUpstream(): Promise<RecordedUpstream> {
  const received: ReceivedRequest[] = [];
  const replies: RecordedReply[] = [];
  let last: RecordedReply = { status: 500, body: '{"error":"no reply queued"}' };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const bodyText = Buffer.concat(parts).toString('utf8');
      let json: unknown = null;
      try {
        json = bodyText ? JSON.parse(bodyText) : null;
      } catch {
        json = null;
      }
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyText, json });
      last = replies.shift() ?? last;
      res.writeHead(last.status ?? 200, { 'content-type': last.contentType ?? 'application/json' });
      res.end(last.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    received,
    reply: (next) => replies.push(next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const recordedDispatcher = new Agent({ keepAliveTimeout: 10 });

export function makeTarget(baseURL: string, key: string, other = '', headers: Record<string, string> = {}): UpstreamTarget {
  return { baseURL, key, other, headers, dispatcher: recordedDispatcher };
}

/** Sends a built upstream request (POST, JSON body) and returns status and body text. */
export async function sendUpstream(built: UpstreamRequest): Promise<{ status: number; text: string }> {
  const { headers, payload } = serializeRequest({ ...built, headers: { ...built.headers } });
  const response = await request(built.url, {
    method: built.method ?? 'POST',
    headers,
    body: payload as string | undefined,
    dispatcher: recordedDispatcher,
  });
  return { status: response.statusCode, text: await response.body.text() };
}

/** Splits a recorded SSE stream into events (`event:` name and joined `data:` lines). */
export function splitSse(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\n+/)) {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (event !== null || data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** Splits a recorded NDJSON stream into one event per non-empty line. */
export function splitNdjson(text: string): StreamEvent[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((data) => ({ event: null, data }));
}

export const emptyOptions = {
  get: () => '',
  json: <T>() => ({}) as T,
  number: () => 0,
  bool: () => false,
};
