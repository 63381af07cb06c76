import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, quotaOfLog } from './sdk-setup.js';

/** The official @google/genai client against ModelGate's /v1beta/models/{model}:generateContent. */
describe('@google/genai → /v1beta/models', () => {
  let server: TestServer;
  let gemini: FixtureUpstream;
  let openai: MockOpenAi;
  let ai: GoogleGenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let geminiChannel: number;
  let openAiChannel: number;

  beforeAll(async () => {
    server = await startTestServer();
    gemini = await startFixtureUpstream();
    openai = await startMockOpenAi();
    caller = await createSdkCaller(server.ctx);
    geminiChannel = await createRelayChannel(server.ctx, {
      type: 24,
      key: 'AIza-channel',
      baseURL: gemini.url,
      models: ['gemini-2.5-flash'],
    });
    openAiChannel = await createRelayChannel(server.ctx, { type: 1, key: 'healthy', baseURL: openai.url, models: ['gpt-4o-mini'] });
    ai = new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } });
  });
  afterAll(async () => {
    await server.stop();
    await gemini.close();
    await openai.close();
  });

  it('Gemini channel, non-stream: passed through; completion = candidates + thoughts, cached billed at the cache ratio', async () => {
    gemini.reply({ status: 200, contentType: 'application/json', body: readFixture('gemini', 'generate-text.json') });
    const response = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'A haiku about autumn' });
    expect(response.text).toBe('Crisp leaves drift and fall,');
    expect(response.usageMetadata).toMatchObject({
      promptTokenCount: 120,
      candidatesTokenCount: 9,
      thoughtsTokenCount: 50,
      cachedContentTokenCount: 64,
    });
    const sent = gemini.requests.at(-1)!;
    expect(sent.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(sent.headers['x-goog-api-key']).toBe('AIza-channel');
    expect(sent.json.contents).toEqual([{ role: 'user', parts: [{ text: 'A haiku about autumn' }] }]);

    const state = await billedState(server.ctx, { ...caller, channelId: geminiChannel });
    const log = state.logs[0]!;
    expect(log.prompt_tokens).toBe(120);
    expect(log.completion_tokens).toBe(9 + 50);
    expect(log.other.cache_tokens).toBe(64);
    expect(log.other.claude).toBeUndefined();
    const { model_ratio: ratio, completion_ratio: completion, cache_ratio: cache } = log.other;
    expect(log.quota).toBe(Math.max(1, Math.round(ratio * (120 - 64 + 64 * cache + 59 * completion))));
    expect(log.quota).toBe(quotaOfLog(log, log.other));
    expect(state.userUsed).toBe(log.quota);
    expect(state.tokenUsed).toBe(log.quota);
    expect(state.channelUsed).toBe(log.quota);
  });

  it('Gemini channel, stream: SSE passed through (?alt=sse upstream), usage from the last chunk', async () => {
    gemini.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('gemini', 'stream-text.chunks.txt') });
    const stream = await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Stream a haiku' });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe('Crisp leaves drift and fall.');
    expect(gemini.requests.at(-1)!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    const state = await billedState(server.ctx, { ...caller, channelId: geminiChannel });
    const log = state.logs[0]!;
    expect(log.is_stream).toBe(1);
    expect(log.prompt_tokens).toBe(30);
    expect(log.completion_tokens).toBe(7 + 12);
    expect(log.other.cache_tokens).toBe(16);
    expect(log.quota).toBe(quotaOfLog(log, log.other));
    expect(state.channelUsed).toBe(state.logs.reduce((sum, row) => sum + row.quota, 0));
  });

  it('OpenAI channel, non-stream and stream: converted to and from Gemini shapes', async () => {
    const response = await ai.models.generateContent({
      model: 'gpt-4o-mini',
      contents: 'Say hello',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 6 },
    });
    expect(response.text).toBe('Hello from the mock upstream.');
    expect(response.usageMetadata?.candidatesTokenCount).toBe(6);
    const sent = openai.requests.at(-1)!;
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ]);
    expect(sent.body.max_tokens).toBe(6);

    const stream = await ai.models.generateContentStream({
      model: 'gpt-4o-mini',
      contents: 'Stream hello',
      config: { maxOutputTokens: 6 },
    });
    let text = '';
    let last: any = null;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expect(text).toBe('Hello from the mock upstream.');
    expect(last.usageMetadata.candidatesTokenCount).toBe(6);
    const state = await billedState(server.ctx, { ...caller, channelId: openAiChannel });
    const rows = state.logs.filter((row) => row.channel_id === openAiChannel);
    expect(rows.map((row) => row.is_stream)).toEqual([1, 0]);
    for (const row of rows) expect(row.quota).toBe(quotaOfLog(row, row.other));
    expect(state.channelUsed).toBe(rows.reduce((sum, row) => sum + row.quota, 0));
  });

  it('lists the models the token may use, and answers errors Google-shaped', async () => {
    const pager = await ai.models.list();
    const names: string[] = [];
    for await (const model of pager) names.push(model.name ?? '');
    expect(names.sort()).toEqual(['models/gemini-2.5-flash', 'models/gpt-4o-mini']);
    const response = await fetch(`${server.url}/v1beta/models/gemini-2.5-flash:generateContent?key=sk-unknown`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
  });
});
