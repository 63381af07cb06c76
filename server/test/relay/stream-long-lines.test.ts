import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/relay/errors.js';
import { createFramingDecoder, maxStreamLineChars } from '../../src/relay/stream/framing.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createSdkCaller } from './sdk-setup.js';

/**
 * A stream's unfinished line is held until its end: an upstream that never ends one (broken, or
 * hostile) must not make the gateway hold it without bound, and a long line must not cost its
 * length squared (before: a 20 MB line took 6.7 s and 1.1 GB; now about 0.2 s).
 */
const piece = 'a'.repeat(64 * 1024);

/** Writes `prefix`, then `count` pieces of 64 KiB without a newline, then `suffix`, respecting backpressure. */
async function writeLongLine(res: http.ServerResponse, prefix: string, count: number, suffix: string) {
  res.write(prefix);
  for (let i = 0; i < count; i += 1) if (!res.write(piece)) await new Promise((resolve) => res.once('drain', resolve));
  res.end(suffix);
}

const overCap = Math.ceil(maxStreamLineChars / piece.length) + 1;
const underCap = 64; // 4 MiB

describe('stream framing decoders refuse a line past the cap and join a long one once', () => {
  for (const framing of ['sse', 'sse-raw', 'ndjson'] as const) {
    it(`${framing}: a line over ${maxStreamLineChars} characters is an upstream failure`, () => {
      const decoder = createFramingDecoder(framing);
      const bytes = Buffer.from(piece);
      expect(decoder.push(Buffer.from(framing === 'ndjson' ? '{"a":"' : 'data: {"a":"'))).toEqual([]);
      let thrown: unknown = null;
      for (let i = 0; i < overCap && thrown === null; i += 1) {
        try {
          expect(decoder.push(bytes)).toEqual([]);
        } catch (error) {
          thrown = error;
        }
      }
      expect(thrown).toBeInstanceOf(UpstreamError);
      expect((thrown as UpstreamError).upstreamCode).toBe('upstream_unreadable');
    });

    it(`${framing}: a 4 MiB line arrives whole`, () => {
      const decoder = createFramingDecoder(framing);
      const bytes = Buffer.from(piece);
      decoder.push(Buffer.from(framing === 'ndjson' ? '{"a":"' : 'data: {"a":"'));
      for (let i = 0; i < underCap; i += 1) expect(decoder.push(bytes)).toEqual([]);
      const events = decoder.push(Buffer.from(framing === 'ndjson' ? '"}\n' : '"}\n\n'));
      expect(events).toHaveLength(1);
      expect((JSON.parse(events[0]!.data) as { a: string }).a.length).toBe(underCap * piece.length);
    });
  }
});

describe('a relayed stream with an endless line', () => {
  let server: TestServer;
  let upstream: http.Server;
  let caller: { userId: number; tokenId: number; apiKey: string };

  beforeAll(async () => {
    server = await startTestServer();
    // /endless/* sends one line past the cap; /long/* a 4 MiB line and then ends normally.
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const isClaude = (req.url ?? '').includes('/v1/messages');
        const isEndless = (req.url ?? '').startsWith('/endless');
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (isClaude) {
          const start = `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-line', content: [], usage: { input_tokens: 5, output_tokens: 1 } } })}\n\n`;
          const deltaHead = `${start}event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"`;
          const tail = `"}}\n\nevent: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`;
          void writeLongLine(res, deltaHead, isEndless ? overCap : underCap, tail);
          return;
        }
        const head =
          'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-line","choices":[{"index":0,"delta":{"content":"';
        const tail = `"},"finish_reason":null}]}\n\ndata: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-line","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}}\n\ndata: [DONE]\n\n`;
        void writeLongLine(res, head, isEndless ? overCap : underCap, tail);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    await setOption(server.ctx, 'RetryTimes', '2');
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-line': 1, 'claude-line': 1, 'gpt-fallback': 1 }));
    caller = await createSdkCaller(server.ctx);
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-a', baseURL: `${base}/endless`, models: ['gpt-fallback'], priority: 10 });
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-b', baseURL: `${base}/long`, models: ['gpt-fallback', 'gpt-line'] });
    await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant', baseURL: `${base}/endless`, models: ['claude-line'] });
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise<void>((resolve) => upstream?.close(() => resolve()));
  });

  const openai = () => new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });

  it('passes a 4 MiB line through whole', async () => {
    const stream = await openai().chat.completions.create({ model: 'gpt-line', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBe(underCap * piece.length);
  });

  it('fails the channel that sends an endless line over to the next one', async () => {
    const stream = await openai().chat.completions.create({
      model: 'gpt-fallback',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBe(underCap * piece.length);
  });

  it('answers an Anthropic client a 502 in its own shape when the only channel sends one', async () => {
    const client = new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
    const error = await client.messages
      .create({ model: 'claude-line', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .then(async (stream) => {
        for await (const _event of stream) {
          /* read to the end */
        }
        return null;
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
  });
});
