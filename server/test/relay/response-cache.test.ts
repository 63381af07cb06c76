import http from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { listenLocal } from '../helpers/local-http.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption, settleBus } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/** One raw call: its status, cache header and exact bytes. */
async function call(
  server: TestServer,
  apiKey: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  path = '/v1/chat/completions',
) {
  const response = await fetch(server.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, cache: response.headers.get('x-modelgate-cache'), bytes, text: bytes.toString('utf8') };
}

/** A body no other test sends (the cache is shared by the describe's server). */
let asked = 0;
const question = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  temperature: 0,
  messages: [{ role: 'user', content: `question ${(asked += 1)} ${Date.now()}` }],
  ...extra,
});

/** The answer is kept once the response has finished: the next call may look a moment later. */
const kept = () => new Promise((resolve) => setTimeout(resolve, 30));

describe.each(storageKinds())('the response cache on %s', (kind) => {
  let server: TestServer;
  let mock: MockOpenAi;
  let userId: number;
  let token: { id: number; apiKey: string };
  const upstreamCalls = () => mock.requests.filter((request) => request.path.endsWith('/chat/completions')).length;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    mock = await startMockOpenAi();
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'], groups: ['default', 'vip'] });
    userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    token = await createRelayToken(server.ctx, userId, { responseCacheTtl: 60 });
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('answers an identical request from the cache: upstream called once, the same bytes, hit after miss', async () => {
    const body = question();
    const first = await call(server, token.apiKey, body);
    await kept();
    const before = upstreamCalls();
    const second = await call(server, token.apiKey, body);
    expect(first.status, first.text).toBe(200);
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    expect(upstreamCalls()).toBe(before);
    // Key order in the body does not matter; `user` does not change the answer.
    const reordered = await call(server, token.apiKey, {
      messages: body.messages,
      temperature: 0,
      model: 'gpt-4o-mini',
      user: 'someone-else',
    });
    expect(reordered.cache).toBe('hit');
    // Another parameter is another question.
    expect((await call(server, token.apiKey, { ...body, max_tokens: 5 })).cache).toBe('miss');
  });

  it('leaves out requests above the temperature bound, without a temperature, or with n > 1', async () => {
    for (const body of [question({ temperature: 0.7 }), question({ temperature: undefined }), question({ n: 2 })]) {
      const before = upstreamCalls();
      const first = await call(server, token.apiKey, body);
      await kept();
      const second = await call(server, token.apiKey, body);
      expect([first.cache, second.cache]).toEqual(['bypass', 'bypass']);
      expect(upstreamCalls()).toBe(before + 2);
    }
    await setOption(server.ctx, 'response_cache.max_temperature', '1');
    try {
      const body = question({ temperature: 0.7 });
      await call(server, token.apiKey, body);
      await kept();
      expect((await call(server, token.apiKey, body)).cache).toBe('hit');
    } finally {
      await setOption(server.ctx, 'response_cache.max_temperature', '0');
    }
  });

  it('skips the cache for Cache-Control: no-store, and asks anew (then keeps) for no-cache', async () => {
    const body = question();
    expect((await call(server, token.apiKey, body, { 'cache-control': 'no-store' })).cache).toBe('bypass');
    await kept();
    expect((await call(server, token.apiKey, body)).cache).toBe('miss');
    await kept();
    const before = upstreamCalls();
    expect((await call(server, token.apiKey, body, { 'cache-control': 'no-cache' })).cache).toBe('miss');
    expect(upstreamCalls()).toBe(before + 1);
    await kept();
    expect((await call(server, token.apiKey, body)).cache).toBe('hit');
  });

  it('forgets an answer after its TTL', async () => {
    const shortLived = await createRelayToken(server.ctx, userId, { responseCacheTtl: 1 });
    const body = question();
    expect((await call(server, shortLived.apiKey, body)).cache).toBe('miss');
    await kept();
    expect((await call(server, shortLived.apiKey, body)).cache).toBe('hit');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await call(server, shortLived.apiKey, body)).cache).toBe('miss');
  });

  it('sends no header and caches nothing when neither the token nor its group turns the cache on', async () => {
    const plain = await createRelayToken(server.ctx, userId);
    const body = question();
    const first = await call(server, plain.apiKey, body);
    const second = await call(server, plain.apiKey, body);
    expect([first.cache, second.cache]).toEqual([null, null]);
  });

  it("never gives one user's answer to another, unless shared within their group", async () => {
    const otherUser = await createRelayUser(server.ctx, { quota: 100_000_000 });
    const other = await createRelayToken(server.ctx, otherUser, { responseCacheTtl: 60 });
    const otherVip = await createRelayToken(server.ctx, otherUser, { responseCacheTtl: 60, group: 'vip' });
    await setOption(server.ctx, 'GroupRatio', JSON.stringify({ default: 1, vip: 1 }));
    await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: 'default', vip: 'vip' }));
    const body = question();
    expect((await call(server, token.apiKey, body)).cache).toBe('miss');
    await kept();
    expect((await call(server, other.apiKey, body)).cache).toBe('miss');
    await setOption(server.ctx, 'response_cache.share_in_group', 'true');
    try {
      const shared = question();
      expect((await call(server, token.apiKey, shared)).cache).toBe('miss');
      await kept();
      expect((await call(server, other.apiKey, shared)).cache).toBe('hit');
      expect((await call(server, otherVip.apiKey, shared)).cache).toBe('miss');
    } finally {
      await setOption(server.ctx, 'response_cache.share_in_group', 'false');
    }
  });

  it('replays a stream chunk by chunk (openai client): the same chunks, the same bytes, no upstream call', async () => {
    const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const body = { ...question(), stream: true as const, stream_options: { include_usage: true } };
    const read = async () => {
      const { data: stream, response } = await client.chat.completions
        .create(body as OpenAI.Chat.ChatCompletionCreateParamsStreaming)
        .withResponse();
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      return { chunks, cache: response.headers.get('x-modelgate-cache') };
    };
    const first = await read();
    await kept();
    const before = upstreamCalls();
    const second = await read();
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(upstreamCalls()).toBe(before);
    expect(first.chunks.length).toBeGreaterThan(3);
    expect(second.chunks).toEqual(first.chunks);
    expect(second.chunks.at(-1)!.usage).toEqual(first.chunks.at(-1)!.usage);
    const raw = await call(server, token.apiKey, body);
    expect(raw.cache).toBe('hit');
    expect(raw.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(raw.text.split('\n\n').filter((frame) => frame.startsWith('data: ')).length).toBe(first.chunks.length + 1);
  });

  it('answers /v1/messages from the cache (@anthropic-ai/sdk)', async () => {
    const client = new Anthropic({ apiKey: token.apiKey, baseURL: server.url, maxRetries: 0 });
    const params = {
      model: 'gpt-4o-mini',
      max_tokens: 64,
      temperature: 0,
      messages: [{ role: 'user' as const, content: `claude question ${Date.now()}` }],
    };
    const first = await client.messages.create(params).withResponse();
    await kept();
    const before = upstreamCalls();
    const second = await client.messages.create(params).withResponse();
    expect([first.response.headers.get('x-modelgate-cache'), second.response.headers.get('x-modelgate-cache')]).toEqual(['miss', 'hit']);
    expect(second.data).toEqual(first.data);
    expect(upstreamCalls()).toBe(before);
  });

  it('answers /v1/completions from the cache, and never an embeddings call', async () => {
    const body = { model: 'gpt-4o-mini', temperature: 0, prompt: `complete ${Date.now()}` };
    const first = await call(server, token.apiKey, body, {}, '/v1/completions');
    await kept();
    const second = await call(server, token.apiKey, body, {}, '/v1/completions');
    expect(first.status, first.text).toBe(200);
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(second.bytes.equals(first.bytes)).toBe(true);
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['text-embedding-3-small'] });
    const embedding = await call(server, token.apiKey, { model: 'text-embedding-3-small', input: 'hello' }, {}, '/v1/embeddings');
    expect(embedding.status, embedding.text).toBe(200);
    expect(embedding.cache).toBe('bypass');
  });

  it('answers Gemini generateContent from the cache', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: `gemini question ${Date.now()}` }] }], generationConfig: { temperature: 0 } };
    const path = '/v1beta/models/gpt-4o-mini:generateContent';
    const first = await call(server, token.apiKey, body, {}, path);
    await kept();
    const second = await call(server, token.apiKey, body, {}, path);
    expect(first.status, first.text).toBe(200);
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(second.bytes.equals(first.bytes)).toBe(true);
  });

  it('bills a hit at the hit ratio of the original call, logged as a hit, and 0 by default', async () => {
    const payer = await createRelayUser(server.ctx, { quota: 10_000_000 });
    const payerToken = await createRelayToken(server.ctx, payer, { responseCacheTtl: 60, remainQuota: 5_000_000 });
    const body = question({ messages: [{ role: 'user', content: `a longer question to be billed ${Date.now()} ${'x'.repeat(400)}` }] });
    expect((await call(server, payerToken.apiKey, body)).cache).toBe('miss');
    await kept();
    expect((await call(server, payerToken.apiKey, body)).cache).toBe('hit');
    await setOption(server.ctx, 'response_cache.hit_ratio', '0.5');
    try {
      expect((await call(server, payerToken.apiKey, body)).cache).toBe('hit');
    } finally {
      await setOption(server.ctx, 'response_cache.hit_ratio', '0');
    }
    await flushRelay(server.ctx);
    const db = server.ctx.storage.db;
    const logs = await db.selectFrom('logs').selectAll().where('type', '=', 2).where('user_id', '=', payer).orderBy('id', 'asc').execute();
    expect(logs).toHaveLength(3);
    const [original, free, half] = logs.map((log) => ({ ...log, quota: Number(log.quota), other: JSON.parse(log.other) }));
    expect(original!.quota).toBeGreaterThan(1);
    expect(original!.other.cache_hit).toBeUndefined();
    expect(free).toMatchObject({
      quota: 0,
      channel_id: 0,
      prompt_tokens: original!.prompt_tokens,
      completion_tokens: original!.completion_tokens,
    });
    expect(free!.other).toMatchObject({ cache_hit: true, cache_hit_ratio: 0, cache_original_quota: original!.quota });
    expect(half!.quota).toBe(Math.round(original!.quota * 0.5));
    expect(half!.other).toMatchObject({ cache_hit: true, cache_hit_ratio: 0.5, cache_original_quota: original!.quota });
    const user = await db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', payer)
      .executeTakeFirstOrThrow();
    const billed = original!.quota + half!.quota;
    expect(Number(user.used_quota)).toBe(billed);
    expect(Number(user.quota)).toBe(10_000_000 - billed);
    expect(Number(user.request_count)).toBe(3);
    const row = await db
      .selectFrom('tokens')
      .select(['used_quota', 'remain_quota'])
      .where('id', '=', payerToken.id)
      .executeTakeFirstOrThrow();
    expect(Number(row.used_quota)).toBe(billed);
    expect(Number(row.remain_quota)).toBe(5_000_000 - billed);
  });
  it('keeps no answer whose stream broke, and refuses a hit the token cannot pay', async () => {
    // An upstream that sends two frames of a stream and then drops the connection.
    let broken = 0;
    const cut = http.createServer((request, response) => {
      request.resume();
      broken += 1;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] })}\n\n`,
      );
      setTimeout(() => response.socket?.destroy(), 20);
    });
    const cutUrl = await listenLocal(cut);
    try {
      await createRelayChannel(server.ctx, { key: 'cut', baseURL: cutUrl, models: ['gpt-4o'] });
      const body = { model: 'gpt-4o', temperature: 0, stream: true, messages: [{ role: 'user', content: `cut ${Date.now()}` }] };
      expect((await call(server, token.apiKey, body)).cache).toBe('miss');
      await kept();
      expect((await call(server, token.apiKey, body)).cache).toBe('miss');
      expect(broken).toBe(2);
    } finally {
      await new Promise((resolve) => cut.close(resolve));
    }

    const poor = await createRelayToken(server.ctx, userId, { responseCacheTtl: 60, remainQuota: 10_000_000 });
    const body = question();
    expect((await call(server, poor.apiKey, body)).cache).toBe('miss');
    await kept();
    await flushRelay(server.ctx);
    await server.ctx.storage.db.updateTable('tokens').set({ remain_quota: 1 }).where('id', '=', poor.id).execute();
    await server.ctx.bus.publish('tokens', String(poor.id));
    await settleBus(server.ctx);
    await setOption(server.ctx, 'response_cache.hit_ratio', '1');
    try {
      const refused = await call(server, poor.apiKey, body);
      expect(refused.status, refused.text).toBe(403);
      expect(refused.cache).toBeNull();
    } finally {
      await setOption(server.ctx, 'response_cache.hit_ratio', '0');
    }
    // Free hits need nothing from the balance, the user's wallet emptied included.
    expect((await call(server, poor.apiKey, body)).cache).toBe('hit');
    const broke = await createRelayUser(server.ctx, { quota: 10_000_000 });
    const brokeToken = await createRelayToken(server.ctx, broke, { responseCacheTtl: 60 });
    const asked = question();
    expect((await call(server, brokeToken.apiKey, asked)).cache).toBe('miss');
    await kept();
    await flushRelay(server.ctx);
    await server.ctx.storage.db.updateTable('users').set({ quota: 0 }).where('id', '=', broke).execute();
    await server.ctx.bus.publish('users', String(broke));
    await settleBus(server.ctx);
    expect((await call(server, brokeToken.apiKey, question())).status).toBe(403);
    expect((await call(server, brokeToken.apiKey, asked)).cache).toBe('hit');
  });
});
