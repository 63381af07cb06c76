import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('relay endpoints through the official openai client', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let client: OpenAI;
  let userId: number;
  let tokenId: number;

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    userId = await createRelayUser(server.ctx, { quota: 50_000_000 });
    const token = await createRelayToken(server.ctx, userId, { name: 'main' });
    tokenId = token.id;
    await createRelayChannel(server.ctx, {
      key: 'healthy',
      baseURL: mock.url,
      models: [
        'gpt-4o-mini',
        'gpt-3.5-turbo-instruct',
        'text-embedding-3-small',
        'omni-moderation-latest',
        'dall-e-3',
        'tts-1',
        'whisper-1',
        'rerank-mini',
      ],
    });
    client = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('relays a non-stream chat completion intact and bills it', async () => {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from the mock upstream.');
    expect(completion.usage).toMatchObject({ prompt_tokens: 7 + 3, completion_tokens: 6 });
    const sent = mock.requestsFor('healthy').at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body).toMatchObject({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });
    await flushRelay(server.ctx);
    const log = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('token_id', '=', tokenId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    // gpt-4o-mini: ratio 0.075, completion ratio 4 → round(0.075 × (10 + 6 × 4)) = 3
    expect(log).toMatchObject({
      type: 2,
      model_name: 'gpt-4o-mini',
      prompt_tokens: 10,
      completion_tokens: 6,
      quota: 3,
      is_stream: 0,
      token_name: 'main',
      group: 'default',
    });
    const other = JSON.parse(log.other);
    expect(other).toMatchObject({
      model_ratio: 0.075,
      completion_ratio: 4,
      group_ratio: 1,
      model_price: -1,
      is_model_mapped: false,
      upstream_model_name: 'gpt-4o-mini',
      group: 'default',
    });
    expect(other.admin_info.use_channel).toHaveLength(1);
  });

  it('streams a chat completion chunk by chunk, ends with [DONE] and hides the usage chunk unless asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
    });
    let text = '';
    let usageSeen = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usageSeen = true;
    }
    expect(text).toBe('Hello from the mock upstream.');
    expect(usageSeen).toBe(false);
    // The gateway asked upstream for usage anyway.
    expect(mock.requestsFor('healthy').at(-1)!.body.stream_options).toEqual({ include_usage: true });

    const raw = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      }),
    });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const body = await raw.text();
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const events = body
      .split('\n\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)));
    expect(events.at(-1).usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 6 });
    expect(body).not.toContain('keep-alive comment');
    await flushRelay(server.ctx);
    const log = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('token_id', '=', tokenId)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({ is_stream: 1, prompt_tokens: 8, completion_tokens: 6, quota: Math.round(0.075 * (8 + 24)) });
    // Time to the first chunk, in ms: a loopback upstream can answer within the same millisecond.
    expect(Number.isInteger(JSON.parse(log.other).frt) && JSON.parse(log.other).frt >= 0).toBe(true);
  });

  it('relays completions, embeddings, moderations and rerank', async () => {
    const completion = await client.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Once upon' });
    expect(completion.choices[0]!.text).toBe('Hello from the mock upstream.');
    const embedding = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['abcd', 'efgh'],
      encoding_format: 'float',
    });
    expect(embedding.data).toHaveLength(2);
    expect(embedding.data[0]!.embedding).toEqual([0.1, 0.2, 0.3, 0.4]);
    expect(embedding.usage.prompt_tokens).toBe(2);
    const moderation = await client.moderations.create({ input: 'hello' });
    expect(moderation.results[0]!.flagged).toBe(false);
    expect(mock.requests.at(-1)!.body.model).toBe('omni-moderation-latest');
    const rerank = await fetch(`${server.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'rerank-mini', query: 'q', documents: ['a', 'b', 'c'] }),
    });
    // rerank-mini has no price configured: rejected before any upstream call.
    expect(rerank.status).toBe(400);
    expect((await rerank.json()).error.code).toBe('model_price_error');
  });

  it('bills per-call priced image models by n', async () => {
    const images = await client.images.generate({ model: 'dall-e-3', prompt: 'a cat', n: 2 });
    expect(images.data).toHaveLength(2);
    await flushRelay(server.ctx);
    const log = await server.ctx.storage.db.selectFrom('logs').selectAll().where('model_name', '=', 'dall-e-3').executeTakeFirstOrThrow();
    // 0.04 US$ × 500000 quota per unit × group ratio 1 × 2 images
    expect(log.quota).toBe(40_000);
    expect(JSON.parse(log.other)).toMatchObject({ model_price: 0.04, group_ratio: 1 });
  });

  it('relays speech (binary) and transcription (multipart)', async () => {
    const speech = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hello there' });
    expect(Buffer.from(await speech.arrayBuffer()).toString()).toBe('ID3mock-audio-bytes');
    const transcription = await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(Buffer.from('RIFFfakewav'), 'a.wav', { type: 'audio/wav' }),
    });
    expect(transcription.text).toBe('transcribed by whisper-1: hello world');
    const upstream = mock.requests.at(-1)!;
    expect(upstream.path).toBe('/v1/audio/transcriptions');
    expect(upstream.rawBody.toString('latin1')).toContain('RIFFfakewav');
  });

  it('lists the models the token may use', async () => {
    const models = await client.models.list();
    const ids = models.data.map((model) => model.id);
    expect(ids).toContain('gpt-4o-mini');
    expect(ids).toContain('text-embedding-3-small');
    const one = await client.models.retrieve('gpt-4o-mini');
    expect(one.id).toBe('gpt-4o-mini');
    await expect(client.models.retrieve('nope-model')).rejects.toMatchObject({ status: 404 });
  });

  it('answers the OpenAI dashboard billing endpoints', async () => {
    for (const prefix of ['', '/v1']) {
      const subscription = await fetch(`${server.url}${prefix}/dashboard/billing/subscription`, {
        headers: { authorization: `Bearer ${client.apiKey}` },
      });
      expect(subscription.status).toBe(200);
      const body = await subscription.json();
      expect(body.object).toBe('billing_subscription');
      expect(body.hard_limit_usd).toBeGreaterThan(99);
      const usage = await (
        await fetch(`${server.url}${prefix}/dashboard/billing/usage`, { headers: { authorization: `Bearer ${client.apiKey}` } })
      ).json();
      expect(usage.total_usage).toBeGreaterThan(0);
    }
  });

  it('keeps user, token and channel counters equal to the sum of the log quotas', async () => {
    await flushRelay(server.ctx);
    const db = server.ctx.storage.db;
    const logs = await db.selectFrom('logs').select(['quota']).where('user_id', '=', userId).execute();
    const sum = logs.reduce((total, row) => total + Number(row.quota), 0);
    const user = await db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const token = await db.selectFrom('tokens').select(['used_quota']).where('id', '=', tokenId).executeTakeFirstOrThrow();
    expect(Number(user.used_quota)).toBe(sum);
    expect(Number(user.quota)).toBe(50_000_000 - sum);
    expect(Number(user.request_count)).toBe(logs.length);
    expect(Number(token.used_quota)).toBe(sum);
  });
});
