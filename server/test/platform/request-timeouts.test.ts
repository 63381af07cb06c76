import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRelayToken, createRelayUser } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

interface Dribble {
  /** Everything the server answered. */
  answer: Promise<string>;
  /** Milliseconds from the first byte sent to the connection's close. */
  closedAfterMs: Promise<number>;
  socket: Socket;
}

/** Opens a raw connection and sends `text` one byte at a time every `everyMs` until the server closes it. */
function dribble(url: string, text: string, everyMs: number): Dribble {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const startedAt = performance.now();
  let answer = '';
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < text.length && socket.writable) socket.write(text[sent++]!);
  }, everyMs);
  socket.on('data', (chunk) => {
    answer += chunk.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer);
      resolve();
    }),
  );
  return { socket, answer: closed.then(() => answer), closedAfterMs: closed.then(() => performance.now() - startedAt) };
}

const chatBody = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
const post = (path: string, contentType: string, body: string, length = body.length) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n${body}`;

describe('slow clients are closed: header and body timeouts', () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { REQUEST_HEADERS_TIMEOUT: '1', REQUEST_BODY_TIMEOUT: '2' } });
    apiKey = (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey;
  });
  afterAll(async () => server.stop());

  it('answers 408 and closes a client that dribbles its headers', async () => {
    const slow = dribble(server.url, post('/v1/chat/completions', 'application/json', chatBody), 200);
    expect(await slow.answer).toMatch(/^HTTP\/1\.1 408/);
    const after = await slow.closedAfterMs;
    expect(after).toBeGreaterThanOrEqual(900);
    expect(after).toBeLessThan(10_000);
  });

  it('answers 408 and closes clients that dribble a body: direct lane, Fastify JSON route, multipart, /api', async () => {
    const head = (path: string, contentType: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`;
    const slow = [
      ['/v1/chat/completions', 'application/json'],
      ['/v1/messages', 'application/json'],
      ['/v1/audio/transcriptions', 'multipart/form-data; boundary=B'],
      ['/api/user/login', 'application/json'],
    ].flatMap(([path, type]) =>
      Array.from({ length: 5 }, () => {
        const client = dribble(server.url, '', 1000);
        // The headers at once, then the body a byte every 200 ms: it would take minutes.
        client.socket.write(head(path!, type!, 100_000));
        const timer = setInterval(() => client.socket.writable && client.socket.write('a'), 200);
        void client.closedAfterMs.then(() => clearInterval(timer));
        return { path, client };
      }),
    );
    for (const { path, client } of slow) {
      const answer = await client.answer;
      expect(answer, path).toMatch(/^HTTP\/1\.1 408/);
      // In the caller's shape: the request's path is known once its head was read.
      const body = JSON.parse(answer.split('\r\n\r\n')[1]!) as Record<string, unknown>;
      if (path === '/api/user/login') expect(body).toEqual({ success: false, message: 'The request took too long to arrive', data: null });
      else expect(body, path).toMatchObject({ error: { code: 'request_timeout', type: 'invalid_request_error' } });
      expect(await client.closedAfterMs, path).toBeGreaterThanOrEqual(1900);
      expect(await client.closedAfterMs, path).toBeLessThan(10_000);
    }
  });

  it('serves a slow body that arrives within the time', async () => {
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    let answer = '';
    const answered = new Promise<void>((resolve) =>
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
        resolve();
      }),
    );
    // A valid key: the caller is let in from the headers, and the relay waits for the whole body.
    const request = post('/v1/chat/completions', 'application/json', chatBody).replace(
      '\r\n\r\n',
      `\r\nAuthorization: Bearer ${apiKey}\r\n\r\n`,
    );
    const split = request.indexOf('\r\n\r\n') + 4;
    socket.write(request.slice(0, split + 10));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(answer).toBe('');
    socket.write(request.slice(split + 10));
    await answered;
    socket.destroy();
    // The body was read whole: the relay answered (no channel serves the model: 404), not the timeout.
    expect(answer).toMatch(/^HTTP\/1\.1 404/);
  });

  it('validates the settings', () => {
    expect(loadConfig({}).requestHeadersTimeoutSeconds).toBe(60);
    expect(loadConfig({}).requestBodyTimeoutSeconds).toBe(300);
    expect(() => loadConfig({ REQUEST_HEADERS_TIMEOUT: '90', REQUEST_BODY_TIMEOUT: '30' })).toThrow(/REQUEST_HEADERS_TIMEOUT/);
    expect(() => loadConfig({ REQUEST_HEADERS_TIMEOUT: '0' })).toThrow(/REQUEST_HEADERS_TIMEOUT/);
    expect(loadConfig({ REQUEST_BODY_TIMEOUT: '0' }).requestBodyTimeoutSeconds).toBe(0);
  });
});
