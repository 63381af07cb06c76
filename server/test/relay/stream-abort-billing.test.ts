import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTextTokens } from '../../src/relay/billing/token-count.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Words the slow upstreams stream, one per event, until the client goes away. */
const word = (index: number) => `word${index} `;

/**
 * A local upstream for three wires that streams a word every 10 ms and never ends on its own
 * (the client aborts): Claude (`/v1/messages`, usage in message_start: 1 output token), Gemini
 * (`:streamGenerateContent`, cumulative usageMetadata in every chunk) and OpenAI (usage only at
 * the end, never reached).
 */
async function startSlowUpstream(): Promise<{ url: string; streamed: () => string; close: () => Promise<void> }> {
  let streamed = '';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const path = req.url ?? '';
      streamed = '';
      let index = 0;
      if (path.startsWith('/v1/messages')) {
        res.write(
          `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_slow', type: 'message', role: 'assistant', model: 'claude-slow', content: [], usage: { input_tokens: 17, output_tokens: 1 } } })}\n\n`,
        );
        res.write(
          `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`,
        );
      }
      const timer = setInterval(() => {
        const text = word(index);
        index += 1;
        streamed += text;
        if (path.startsWith('/v1/messages')) {
          res.write(
            `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })}\n\n`,
          );
        } else if (path.includes(':streamGenerateContent')) {
          // Gemini counts cumulatively, a little behind what it sent (it is only ever a partial count).
          res.write(
            `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }], usageMetadata: { promptTokenCount: 17, candidatesTokenCount: Math.max(1, index - 3), totalTokenCount: 17 + index } })}\n\n`,
          );
        } else {
          res.write(
            `data: ${JSON.stringify({ id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1, model: 'gpt-slow', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`,
          );
        }
      }, 10);
      res.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    streamed: () => streamed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a client that aborts a stream is billed what was produced, on every channel kind', () => {
  let server: TestServer;
  let upstream: Awaited<ReturnType<typeof startSlowUpstream>>;
  let userId: number;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startSlowUpstream();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'claude-slow': 1, 'gemini-slow': 1, 'gpt-slow': 1 }));
    await setOption(server.ctx, 'CompletionRatio', JSON.stringify({ 'claude-slow': 1, 'gemini-slow': 1, 'gpt-slow': 1 }));
    userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    apiKey = (await createRelayToken(server.ctx, userId, { remainQuota: 50_000_000 })).apiKey;
    await createRelayChannel(server.ctx, { type: 14, key: 'k-claude', baseURL: upstream.url, models: ['claude-slow'] });
    await createRelayChannel(server.ctx, { type: 24, key: 'k-gemini', baseURL: upstream.url, models: ['gemini-slow'] });
    await createRelayChannel(server.ctx, { type: 1, key: 'k-openai', baseURL: upstream.url, models: ['gpt-slow'] });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  for (const model of ['claude-slow', 'gemini-slow', 'gpt-slow']) {
    it(`${model}: the streamed text is billed when the final usage never came`, async () => {
      const client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const controller = new AbortController();
      const stream = await client.chat.completions.create(
        { model, stream: true, messages: [{ role: 'user', content: 'Tell me a long story' }] },
        { signal: controller.signal },
      );
      let received = '';
      await (async () => {
        for await (const chunk of stream) {
          received += chunk.choices[0]?.delta?.content ?? '';
          if (received.split(' ').length > 40) controller.abort();
        }
      })().catch(() => undefined);
      const produced = received;
      await expect
        .poll(async () => {
          await flushRelay(server.ctx);
          return (
            await server.ctx.storage.db
              .selectFrom('logs')
              .select('id')
              .where('user_id', '=', userId)
              .where('model_name', '=', model)
              .execute()
          ).length;
        })
        .toBe(1);
      const log = await server.ctx.storage.db
        .selectFrom('logs')
        .selectAll()
        .where('user_id', '=', userId)
        .where('model_name', '=', model)
        .executeTakeFirstOrThrow();
      // At least what the client received (the gateway may have streamed a little more before it saw the abort).
      expect(log.completion_tokens).toBeGreaterThanOrEqual(countTextTokens(produced));
      expect(log.completion_tokens).toBeLessThanOrEqual(countTextTokens(upstream.streamed()) + 1);
      expect(log.prompt_tokens).toBeGreaterThan(0);
      expect(log.quota).toBeGreaterThan(0);
    });
  }
});
