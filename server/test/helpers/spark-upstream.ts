import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';

/** What the local Spark server saw of one call. */
export interface SparkCall {
  path: string;
  query: URLSearchParams;
  frame: any;
}

/**
 * A local iFlytek Spark server: checks each upgrade's signed URL itself (the HMAC-SHA256 over host,
 * date and the request line with the APISecret it knows, and the date within 300 s), refuses a bad
 * one with 401 as iFlytek does, then answers the request frame with the queued frames and closes.
 */
export interface SparkUpstream {
  url: string;
  calls: SparkCall[];
  refused: number;
  reply(frames: unknown[]): void;
  close(): Promise<void>;
}

function expectedSignature(apiSecret: string, host: string, date: string, path: string): string {
  return createHmac('sha256', apiSecret).update(`host: ${host}\ndate: ${date}\nGET ${path} HTTP/1.1`).digest('base64');
}

function refuse(socket: Duplex, message: string): void {
  const body = JSON.stringify({ message });
  socket.end(
    `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export async function startSparkUpstream(keys: { apiKey: string; apiSecret: string }): Promise<SparkUpstream> {
  const queue: unknown[][] = [];
  const calls: SparkCall[] = [];
  const wss = new WebSocketServer({ noServer: true });
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const state = { refused: 0 };
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const query = url.searchParams;
    const date = query.get('date') ?? '';
    const host = query.get('host') ?? '';
    let origin = '';
    try {
      origin = Buffer.from(query.get('authorization') ?? '', 'base64').toString('utf8');
    } catch {
      origin = '';
    }
    const signature = /signature="([^"]+)"/.exec(origin)?.[1];
    const apiKey = /api_key="([^"]+)"/.exec(origin)?.[1];
    const skewMs = Math.abs(Date.now() - Date.parse(date));
    const isSigned =
      apiKey === keys.apiKey &&
      host === req.headers.host &&
      signature === expectedSignature(keys.apiSecret, host, date, url.pathname) &&
      skewMs < 300_000;
    if (!isSigned) {
      state.refused += 1;
      refuse(socket, 'HMAC signature does not match');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.once('message', (data) => {
        calls.push({ path: url.pathname, query, frame: JSON.parse(data.toString()) });
        for (const frame of queue.shift() ?? []) ws.send(JSON.stringify(frame));
        ws.close();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    calls,
    get refused() {
      return state.refused;
    },
    reply: (frames) => queue.push(frames),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
      }),
  };
}

/** Frames of an NDJSON fixture. */
export const framesOf = (ndjson: string): unknown[] =>
  ndjson
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as unknown);
