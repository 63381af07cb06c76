import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

/**
 * A local realtime upstream speaking OpenAI's event format. Per connection it records the handshake
 * (URL, headers), every frame it receives, and how the connection closed. On open it sends
 * `session.created`; each `response.create` gets `response.created`, a transcript delta and a
 * `response.done` with the next usage of `usages`; a binary frame is echoed back as binary.
 * A channel key `fail-<status>` refuses the handshake with that status and an OpenAI error body.
 * A `mock.error` client event gets an `error` event echoing the channel key and an internal address
 * (`server_error`, or `invalid_request_error` when the event asks for it). A `mock.huge` event with
 * `bytes` gets a `response.audio.delta` event of about that size (`count` of them, one when unset);
 * after `mock.stall` the upstream reads nothing more.
 */
export interface UpstreamConnection {
  url: string;
  headers: http.IncomingHttpHeaders;
  received: Array<{ data: Buffer; isBinary: boolean }>;
  sent: string[];
  closed: Promise<number>;
}

export const usages = [
  {
    total_tokens: 370,
    input_tokens: 120,
    output_tokens: 250,
    input_token_details: { cached_tokens: 10, text_tokens: 20, audio_tokens: 100 },
    output_token_details: { text_tokens: 50, audio_tokens: 200 },
  },
  {
    total_tokens: 390,
    input_tokens: 300,
    output_tokens: 90,
    input_token_details: {
      cached_tokens: 64,
      text_tokens: 40,
      audio_tokens: 260,
      cached_tokens_details: { text_tokens: 24, audio_tokens: 40 },
    },
    output_token_details: { text_tokens: 30, audio_tokens: 60 },
  },
];

export async function startMockRealtime() {
  const connections: UpstreamConnection[] = [];
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '') || String(req.headers['api-key'] ?? '');
    const failure = /^fail-(\d{3})$/.exec(key);
    if (failure) {
      const body = JSON.stringify({
        error: { message: `mock realtime refused with ${failure[1]}`, type: 'invalid_request_error', code: 'mock_refused' },
      });
      socket.end(
        `HTTP/1.1 ${failure[1]} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      let closedResolve!: (code: number) => void;
      const connection: UpstreamConnection = {
        url: req.url ?? '',
        headers: req.headers,
        received: [],
        sent: [],
        closed: new Promise((resolve) => (closedResolve = resolve)),
      };
      connections.push(connection);
      ws.on('close', (code) => closedResolve(code));
      const send = (event: Record<string, unknown>) => {
        const text = JSON.stringify(event);
        connection.sent.push(text);
        ws.send(text);
      };
      let responses = 0;
      send({
        type: 'session.created',
        event_id: 'event_1',
        session: { id: 'sess_1', object: 'realtime.session', model: new URL(req.url ?? '/', 'http://x').searchParams.get('model') },
      });
      ws.on('message', (data: Buffer, isBinary) => {
        connection.received.push({ data, isBinary });
        if (isBinary) return ws.send(data, { binary: true });
        const event = JSON.parse(data.toString('utf8')) as {
          type: string;
          event_id?: string;
          kind?: string;
          bytes?: number;
          count?: number;
        };
        if (event.type === 'mock.stall') return ws.pause();
        if (event.type === 'mock.huge') {
          const delta = JSON.stringify({ type: 'response.audio.delta', delta: 'A'.repeat(event.bytes ?? 0) });
          for (let i = 0; i < (event.count ?? 1); i += 1) ws.send(delta);
          return;
        }
        if (event.type === 'mock.error') {
          return send({
            type: 'error',
            event_id: 'event_err',
            error: {
              type: event.kind ?? 'server_error',
              code: 'mock_code',
              message: `Invalid 'voice' with key ${key} at 10.20.30.40:3849`,
              param: null,
              event_id: event.event_id,
            },
          });
        }
        if (event.type !== 'response.create') return;
        const id = `resp_${responses}`;
        send({
          type: 'response.created',
          event_id: `event_c${responses}`,
          response: { id, object: 'realtime.response', status: 'in_progress', output: [], usage: null },
        });
        send({
          type: 'response.audio_transcript.delta',
          event_id: `event_d${responses}`,
          response_id: id,
          item_id: 'item_1',
          output_index: 0,
          content_index: 0,
          delta: 'Hello — 你好',
        });
        send({
          type: 'response.done',
          event_id: `event_e${responses}`,
          response: { id, object: 'realtime.response', status: 'completed', output: [], usage: usages[responses % usages.length] },
        });
        responses += 1;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    connections,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Frame {
  text: string;
  data: Buffer;
  isBinary: boolean;
}

/** A client socket whose frames are collected from the start. */
export function openClient(url: string, options: { protocols?: string[]; headers?: Record<string, string> } = {}) {
  const socket = new WebSocket(url, options.protocols ?? [], { headers: options.headers, perMessageDeflate: false });
  const frames: Frame[] = [];
  socket.on('message', (data: Buffer, isBinary) => frames.push({ data, isBinary, text: isBinary ? '' : data.toString('utf8') }));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const rejected = new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve) => {
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
  });
  return { socket, frames, closed, opened, rejected };
}

export async function waitFor<T>(read: () => T | undefined | null | false, label: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export const eventTypes = (frames: Frame[]) =>
  frames.filter((frame) => !frame.isBinary).map((frame) => (JSON.parse(frame.text) as { type: string }).type);

export type MockRealtime = Awaited<ReturnType<typeof startMockRealtime>>;
