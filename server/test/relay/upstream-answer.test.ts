import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamAnswer, maxErrorBody, type AbortSource, type AnswerSink } from '../../src/relay/upstream/upstream-answer.js';

/** A minimal abort source, like the relay's CallSignal. */
class Signal implements AbortSource {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];
  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.push(listener);
  }
  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners = this.listeners.filter((item) => item !== listener);
  }
  abort(reason: unknown): void {
    this.aborted = true;
    this.reason = reason;
    for (const listener of this.listeners) listener();
  }
  get listenerCount(): number {
    return this.listeners.length;
  }
}

const sseBody = Array.from({ length: 50 }, (_, i) => `data: {"n":${i}}\n\n`).join('');
let origin = '';
let server: http.Server;
const agent = new Agent({ keepAliveTimeout: 10_000 });

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/hints') {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    } else if (req.url === '/error') {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('x'.repeat(maxErrorBody * 2));
    } else if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody);
    } else if (req.url === '/big-stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const piece = `data: ${'y'.repeat(16 * 1024)}\n\n`;
      let left = 256; // 4 MB
      const write = () => {
        while (left > 0) {
          left -= 1;
          if (!res.write(piece)) return void res.once('drain', write);
        }
        res.end();
      };
      write();
    } else {
      // /slow: never answers (the client aborts)
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function call(path: string, signal: Signal, isStream: boolean): UpstreamAnswer {
  const answer = new UpstreamAnswer(signal, isStream);
  agent.dispatch({ origin, path, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }, answer);
  return answer;
}

/** Collects a streamed answer; `holdEvery` pieces it reports a full client buffer and resumes on the next tick. */
function collect(answer: UpstreamAnswer, holdEvery = 0): Promise<{ text: string; pauses: number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    let pieces = 0;
    let pauses = 0;
    const sink: AnswerSink = {
      data(chunk) {
        text += chunk.toString('utf8');
        pieces += 1;
        if (holdEvery > 0 && pieces % holdEvery === 0) {
          pauses += 1;
          setImmediate(() => answer.resume());
          return false;
        }
        return true;
      },
      end: () => resolve({ text, pauses }),
      error: reject,
    };
    answer.stream(sink);
  });
}

describe('UpstreamAnswer (undici dispatch handler of the pass-through)', () => {
  it('skips an informational 103 head and buffers the real answer', async () => {
    const signal = new Signal();
    const head = await call('/hints', signal, false).head;
    expect(head).toEqual({ statusCode: 200, contentType: 'application/json', body: Buffer.from('{"ok":true}') });
    expect(signal.listenerCount).toBe(0);
  });

  it('caps an error body at maxErrorBody and reads the connection to its end', async () => {
    const head = await call('/error', new Signal(), true).head;
    expect(head.statusCode).toBe(500);
    expect(head.body!.length).toBe(maxErrorBody);
    // The connection is reusable: the next call on the same pool succeeds.
    expect((await call('/hints', new Signal(), false).head).statusCode).toBe(200);
  });

  it('resolves a stream at its head and gives the sink everything that came before it was attached', async () => {
    const answer = call('/stream', new Signal(), true);
    const head = await answer.head;
    expect(head).toEqual({ statusCode: 200, contentType: 'text/event-stream', body: null });
    await new Promise((resolve) => setTimeout(resolve, 20)); // the whole body has arrived meanwhile
    expect((await collect(answer)).text).toBe(sseBody);
  });

  it('pauses the upstream while the sink is full and resumes when told', async () => {
    const answer = call('/big-stream', new Signal(), true);
    await answer.head;
    const { text, pauses } = await collect(answer, 3);
    expect(text.length).toBe(256 * (16 * 1024 + 8));
    expect(pauses).toBeGreaterThan(5);
  });

  it('rejects the head when the call is aborted before the answer', async () => {
    const signal = new Signal();
    const answer = call('/slow', signal, false);
    setTimeout(() => signal.abort(new Error('client closed')), 30);
    await expect(answer.head).rejects.toThrow('client closed');
    expect(signal.listenerCount).toBe(0);
  });

  it('rejects at once when the signal was aborted before the request was sent', async () => {
    const signal = new Signal();
    signal.abort(new Error('gone'));
    await expect(call('/hints', signal, false).head).rejects.toThrow('gone');
  });
});
