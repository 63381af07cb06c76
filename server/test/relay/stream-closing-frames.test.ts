import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiChunkTransform } from '../../src/relay/providers/openai/chat-stream.js';
import { openAiStream, type StreamOutcome } from '../helpers/pipe-stream.js';

const event = (content: string): string =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const doneEvent = 'data: [DONE]\n\n';

/** A chunked HTTP/1.1 body decoded: the data, and what the connection carried after the terminating chunk. */
function decodeChunked(raw: string): { body: string; afterEnd: string } {
  let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    rest = rest.slice(lineEnd + 2);
    if (size === 0) return { body, afterEnd: rest.slice(2) };
    body += rest.slice(0, size);
    rest = rest.slice(size + 2);
  }
}

/**
 * A real HTTP server whose response the stream driver writes: the first upstream piece on its own,
 * then the last piece and the upstream's end in one tick (an upstream's final read), so the driver
 * ends the response while this tick's writes are still corked.
 */
async function serveStream(first: string, last: string): Promise<{ url: URL; outcome: Promise<StreamOutcome>; close(): Promise<void> }> {
  let settle!: (outcome: Promise<StreamOutcome>) => void;
  const outcome = new Promise<Promise<StreamOutcome>>((resolve) => (settle = resolve)).then((done) => done);
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const stream = openAiStream(
      {
        out: response,
        transform: createOpenAiChunkTransform({}),
        clientWantsUsage: false,
        idleTimeoutMs: 5000,
        pingIntervalMs: 0,
        abort: () => undefined,
        startedAt: Date.now(),
        model: 'gpt-4o-mini',
        countPromptTokens: () => 3,
      },
      () => undefined,
    );
    settle(stream.done);
    stream.data(Buffer.from(first));
    setTimeout(() => {
      stream.data(Buffer.from(last));
      stream.end();
    }, 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return { url, outcome, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The raw bytes of one response, read until the server closes the connection. */
function rawResponse(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () =>
      socket.write(`POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
    );
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (piece: string) => (raw += piece));
    socket.on('end', () => resolve(raw));
    socket.on('error', reject);
  });
}

describe('the closing frames of a stream', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('go out after the events written in the same tick, before the end of the chunked body', async () => {
    const served = await serveStream(event('one'), `${event('two')}${event('three')}`);
    close = served.close;
    const raw = await rawResponse(served.url);
    const outcome = await served.outcome;
    expect(outcome.error).toBeNull();
    expect(decodeChunked(raw)).toEqual({ body: `${event('one')}${event('two')}${event('three')}${doneEvent}`, afterEnd: '' });
  });

  it("go out after the events when the upstream's [DONE] comes in the last read", async () => {
    const served = await serveStream(event('one'), `${event('two')}${doneEvent}`);
    close = served.close;
    const raw = await rawResponse(served.url);
    await served.outcome;
    expect(decodeChunked(raw)).toEqual({ body: `${event('one')}${event('two')}${doneEvent}`, afterEnd: '' });
  });
});
