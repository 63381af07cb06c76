import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const piece = 'x'.repeat(1000);
const pieces = 12_000;
const chunkOf = (content: string) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/**
 * An OpenAI-wire upstream: `big` streams 12,000 chunks of 1,000 characters as fast as it may (about
 * 13 MB: loopback socket buffers hold several MB, so the relay does wait on the client), `hang` sends
 * one chunk and then nothing.
 */
async function startStreamingUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const model = (JSON.parse(body) as { model: string }).model;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      if (model === 'slow-hang') {
        response.write(chunkOf('first'));
        return;
      }
      let sent = 0;
      const pump = () => {
        while (sent < pieces) {
          sent += 1;
          if (!response.write(chunkOf(piece))) return void response.once('drain', pump);
        }
        response.end(
          `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: pieces, total_tokens: pieces + 5 } })}\n\ndata: [DONE]\n\n`,
        );
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A raw client that reads nothing for `stallMs` (longer than STREAMING_TIMEOUT), then reads in short
 * bursts (20 ms every 250 ms) until the answer ends: a slow reader under backpressure throughout.
 */
function readSlowly(url: string, request: string, stallMs: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let toggle: NodeJS.Timeout | null = null;
    const finish = () => {
      if (toggle) clearInterval(toggle);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // The end of the chunked answer (SSE answers keep the connection open).
      if (chunk.toString('latin1').endsWith('\r\n0\r\n\r\n')) finish();
    });
    socket.on('error', reject);
    socket.on('close', finish);
    socket.write(request);
    socket.pause();
    setTimeout(() => {
      toggle = setInterval(() => {
        socket.resume();
        setTimeout(() => socket.pause(), 20);
      }, 250);
    }, stallMs);
  });
}

describe('the stream idle timeout counts upstream silence, not a slow client (STREAMING_TIMEOUT=1)', () => {
  let server: TestServer;
  let upstream: { url: string; close(): Promise<void> };
  let apiKey: string;

  beforeAll(async () => {
    upstream = await startStreamingUpstream();
    server = await startTestServer({ env: { STREAMING_TIMEOUT: '1' } });
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), 'slow-big': 1, 'slow-hang': 1 }),
    );
    await createRelayChannel(server.ctx, { key: 'k', baseURL: upstream.url, models: ['slow-big', 'slow-hang'] });
    apiKey = (await createRelayToken(server.ctx, await createRelayUser(server.ctx, { quota: 1_000_000_000 }))).apiKey;
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  const httpRequest = (path: string, body: Record<string, unknown>) => {
    const text = JSON.stringify(body);
    return `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nx-api-key: ${apiKey}\r\nanthropic-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
  };
  const countPieces = (text: string) => text.split(piece).length - 1;

  it('OpenAI pass-through (stream driver): a client stalled for 2.5 s and then reading slowly gets the whole answer', async () => {
    const answer = await readSlowly(
      server.url,
      httpRequest('/v1/chat/completions', { model: 'slow-big', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      2500,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).not.toContain('stream_idle_timeout');
    expect(answer).toContain('data: [DONE]');
    expect(countPieces(answer)).toBe(pieces);
  });

  it('converted stream (pipeEvents, Claude format): the same', async () => {
    const answer = await readSlowly(
      server.url,
      httpRequest('/v1/messages', { model: 'slow-big', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      2500,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).not.toContain('event: error');
    expect(answer).toContain('message_stop');
    expect(countPieces(answer)).toBe(pieces);
  });

  it('an upstream that goes silent while the client keeps up is still ended at STREAMING_TIMEOUT, on both paths', async () => {
    const startedAt = performance.now();
    const openAi = await readSlowly(
      server.url,
      httpRequest('/v1/chat/completions', { model: 'slow-hang', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      0,
    );
    expect(openAi).toContain('stream_idle_timeout');
    const claude = await readSlowly(
      server.url,
      httpRequest('/v1/messages', { model: 'slow-hang', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      0,
    );
    expect(claude).toContain('event: error');
    expect(performance.now() - startedAt).toBeLessThan(15_000);
  });
});
