import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

const json = (body: string) => ({ status: 200, contentType: 'application/json', body });

/** The openai client on /v1/embeddings, /v1/completions and /v1/rerank served through converters. */
describe('openai client → embeddings, completions and rerank on converting channels', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};
  const rerank = (model: string) =>
    fetch(`${server.url}/v1/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, query: 'capital of the USA?', documents: ['Washington, D.C.', 'Paris', 'Carson City'], top_n: 2 }),
    });

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    const { ctx } = server;
    await setOption(ctx, 'SelfUseModeEnabled', 'true');
    await setOption(ctx, 'ModelPrice', JSON.stringify({ ...ctx.options.json<Record<string, number>>('ModelPrice'), 'rerank-v3.5': 0.002 }));
    await setOption(
      ctx,
      'ModelRatio',
      JSON.stringify({
        ...ctx.options.json<Record<string, number>>('ModelRatio'),
        'jina-reranker-v2-base-multilingual': 1,
        'nomic-embed-text': 1,
        'text-embedding-004': 1,
        'llama3.1': 1,
      }),
    );
    caller = await createSdkCaller(ctx);
    channels.gemini = await createRelayChannel(ctx, { type: 24, key: 'AIza', baseURL: upstream.url, models: ['text-embedding-004'] });
    channels.ollama = await createRelayChannel(ctx, { type: 4, key: '', baseURL: upstream.url, models: ['nomic-embed-text', 'llama3.1'] });
    channels.cohere = await createRelayChannel(ctx, { type: 34, key: 'co-key', baseURL: upstream.url, models: ['rerank-v3.5'] });
    channels.jina = await createRelayChannel(ctx, {
      type: 38,
      key: 'jina_key',
      baseURL: upstream.url,
      models: ['jina-reranker-v2-base-multilingual'],
    });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('Gemini embeddings: batchEmbedContents upstream, OpenAI list back, billed on counted input', async () => {
    upstream.reply(json(readFixture('gemini', 'embeddings.json')));
    const result = await client.embeddings.create({
      model: 'text-embedding-004',
      input: ['first text', 'second text'],
      encoding_format: 'float',
    });
    expect(result.data.map((item) => item.embedding)).toEqual([
      [0.0123, -0.0456, 0.0789],
      [0.5, 0.25, -0.125],
    ]);
    expect(result.data.map((item) => item.index)).toEqual([0, 1]);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
    expect(sent.headers['x-goog-api-key']).toBe('AIza');
    expect(sent.json.requests).toHaveLength(2);
    expect(sent.json.requests[0]).toMatchObject({ model: 'models/text-embedding-004', content: { parts: [{ text: 'first text' }] } });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.gemini! });
    expect(state.logs).toHaveLength(1);
    expect(state.logs[0]!.prompt_tokens).toBeGreaterThan(0);
    expect(state.logs[0]!.model_name).toBe('text-embedding-004');
  });

  it('Ollama embeddings: /api/embed upstream with prompt_eval_count as usage', async () => {
    upstream.reply(json(readFixture('ollama', 'embed.json')));
    const result = await client.embeddings.create({ model: 'nomic-embed-text', input: ['a', 'b'], encoding_format: 'float' });
    expect(result.data.map((item) => item.embedding)).toEqual([
      [0.01, -0.02, 0.03],
      [0.04, 0.05, -0.06],
    ]);
    expect(result.usage.prompt_tokens).toBe(8);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/api/embed');
    expect(sent.json).toMatchObject({ model: 'nomic-embed-text', input: ['a', 'b'] });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.ollama! });
    expect(state.logs[0]).toMatchObject({ prompt_tokens: 8, model_name: 'nomic-embed-text' });
  });

  it('Ollama completions: /api/generate, non-stream and stream, as text_completion', async () => {
    upstream.reply(
      json(
        JSON.stringify({
          model: 'llama3.1',
          response: 'def add(a, b):',
          done: true,
          done_reason: 'stop',
          prompt_eval_count: 5,
          eval_count: 6,
        }),
      ),
    );
    const completion = await client.completions.create({ model: 'llama3.1', prompt: 'Write add in Python', max_tokens: 16 });
    expect(completion.choices[0]!.text).toBe('def add(a, b):');
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 6 });
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/api/generate');
    expect(sent.json).toMatchObject({ model: 'llama3.1', prompt: 'Write add in Python', stream: false });

    upstream.reply({ status: 200, contentType: 'application/x-ndjson', body: readFixture('ollama', 'generate-stream.chunks.txt') });
    const stream = await client.completions.create({
      model: 'llama3.1',
      prompt: 'Write add',
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('def add');
    expect(finish).toBe('length');
    expect(usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 2 });
    expect(upstream.requests.at(-1)!.json.stream).toBe(true);
    const state = await billedState(server.ctx, { ...caller, channelId: channels.ollama! });
    expect(state.logs[0]).toMatchObject({ prompt_tokens: 7, completion_tokens: 2, is_stream: 1 });
  });

  it('Cohere rerank: /v1/rerank upstream, billed per search unit at the model price', async () => {
    upstream.reply(json(readFixture('cohere', 'rerank.json')));
    const response = await rerank('rerank-v3.5');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.results.map((item: { index: number }) => item.index)).toEqual([2, 0]);
    expect(body.results[0].relevance_score).toBe(0.98);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/rerank');
    expect(sent.headers.authorization).toBe('Bearer co-key');
    expect(sent.json).toMatchObject({ model: 'rerank-v3.5', query: 'capital of the USA?', top_n: 2 });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.cohere! });
    // 1 search unit × $0.002 × QuotaPerUnit (500000) × group ratio 1.
    expect(state.logs[0]!.quota).toBe(Math.round(0.002 * server.ctx.options.number('QuotaPerUnit')));
    expect(state.logs[0]!.other.model_price).toBe(0.002);
  });

  it('Jina rerank: /v1/rerank upstream, billed on its total_tokens', async () => {
    upstream.reply(json(readFixture('jina', 'rerank.json')));
    const response = await rerank('jina-reranker-v2-base-multilingual');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.results.map((item: { index: number }) => item.index)).toEqual([1, 0]);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/rerank');
    expect(sent.headers.authorization).toBe('Bearer jina_key');
    const state = await billedState(server.ctx, { ...caller, channelId: channels.jina! });
    expect(state.logs[0]!.prompt_tokens).toBe(42);
  });
});
