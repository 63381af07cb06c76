import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutatedBodies } from '../helpers/hostile-values.js';
import { startMjUpstream, type MjUpstream } from '../helpers/mj-upstream.js';
import { startMockClaude, type MockClaude } from '../helpers/mock-claude.js';
import { startMockModels, type MockModels } from '../helpers/mock-models.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startSteadyOpenAi, type SteadyOpenAi } from '../helpers/steady-openai.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import type { Json } from '@modelgate/shared';

/**
 * Beside the chaos sweep (test/chaos/bad-input-sweep.test.ts: hostile values in a fixed bag of field
 * names), this reaches the fields converters read deep inside a request. Every relay route, fed
 * well-formed bodies with one field at a time replaced by a hostile value
 * (NUL, a lone surrogate, 1e308, 2^53 + 2, the wrong type, `__proto__`, …), on OpenAI-wire, Claude and
 * Gemini channels and the task platforms: each answer is a 2xx or the caller's 4xx, within seconds,
 * and no channel is blamed (every one stays enabled). About 15,000 requests.
 */
describe('relay bodies with one field made hostile', () => {
  let server: TestServer;
  let openai: SteadyOpenAi;
  let claude: MockClaude;
  let models: MockModels;
  let mj: MjUpstream;
  let suno: SunoUpstream;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    [openai, claude, models, mj, suno] = await Promise.all([
      startSteadyOpenAi(),
      startMockClaude(),
      startMockModels(),
      startMjUpstream('mj-key'),
      startSunoUpstream('suno-key'),
    ]);
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-h': 1, 'claude-h': 1, 'emb-h': 1, 'gem-h': 1 }));
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'DrawingEnabled', 'true');
    await setOption(
      server.ctx,
      'ModelPrice',
      JSON.stringify({ suno_music: 0.1, suno_lyrics: 0.01, mj_imagine: 0.1, mj_blend: 0.1, mj_upscale: 0.1 }),
    );
    const userId = await createRelayUser(server.ctx, { quota: 1e12 });
    apiKey = (await createRelayToken(server.ctx, userId, { remainQuota: 1e11 })).apiKey;
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-up', baseURL: openai.url, models: ['gpt-h', 'emb-h'] });
    await createRelayChannel(server.ctx, { type: 14, key: 'sk-ant', baseURL: claude.url, models: ['claude-h'] });
    await createRelayChannel(server.ctx, { type: 24, key: 'AIza', baseURL: models.url, models: ['gem-h'] });
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: suno.url, models: ['suno_music', 'suno_lyrics'] });
    await createRelayChannel(server.ctx, { type: 5, key: 'mj-key', baseURL: mj.url, models: ['mj_imagine', 'mj_blend', 'mj_upscale'] });
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([openai?.close(), claude?.close(), models?.close(), mj?.close(), suno?.close()]);
  });

  function cases(): Array<[string, Json]> {
    const chat = {
      model: '',
      stream: false,
      max_tokens: 20,
      temperature: 0.5,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'auto',
      stop: ['x'],
      response_format: { type: 'json_object' },
      stream_options: { include_usage: true },
    };
    const messages = {
      model: '',
      max_tokens: 20,
      stream: false,
      system: [{ type: 'text', text: 'be brief' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'auto' },
      stop_sequences: ['x'],
      thinking: { type: 'enabled', budget_tokens: 1024 },
      metadata: { user_id: 'u' },
    };
    const gemini = {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      systemInstruction: { parts: [{ text: 'be brief' }] },
      generationConfig: { maxOutputTokens: 20, temperature: 0.3, stopSequences: ['x'], responseMimeType: 'application/json' },
      tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' } }] }],
    };
    const responses = {
      model: '',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      instructions: 'x',
      max_output_tokens: 20,
      stream: false,
      tools: [{ type: 'function', name: 'f', parameters: {} }],
    };
    const out: Array<[string, Json]> = [];
    const add = (path: string, base: Json) => {
      for (const body of mutatedBodies(base)) out.push([path, body]);
    };
    for (const model of ['gpt-h', 'claude-h', 'gem-h']) {
      add('/v1/chat/completions', { ...chat, model });
      add('/v1/messages', { ...messages, model });
      add(`/v1beta/models/${model}:generateContent`, gemini);
      add('/v1/responses', { ...responses, model });
    }
    add('/v1/completions', { model: 'gpt-h', prompt: 'hi', max_tokens: 5, stream: false });
    add('/v1/embeddings', { model: 'emb-h', input: ['a', 'b'], encoding_format: 'float', dimensions: 3 });
    add('/v1/images/generations', { model: 'gpt-h', prompt: 'cat', n: 1, size: '256x256' });
    add('/v1/moderations', { model: 'gpt-h', input: ['a'] });
    add('/v1/rerank', { model: 'gpt-h', query: 'q', documents: ['a', 'b'], top_n: 1 });
    add('/v1/audio/speech', { model: 'gpt-h', input: 'say', voice: 'alloy', response_format: 'mp3', speed: 1 });
    add('/v1/messages/count_tokens', {
      model: 'claude-h',
      messages: [{ role: 'user', content: 'hi' }],
      system: 'x',
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
    });
    add('/v1beta/models/gem-h:countTokens', gemini);
    add('/v1beta/models/gem-h:embedContent', { content: { parts: [{ text: 'a' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 3 });
    add('/v1beta/models/gem-h:batchEmbedContents', { requests: [{ model: 'models/gem-h', content: { parts: [{ text: 'a' }] } }] });
    add('/mj/submit/imagine', {
      prompt: 'a cat',
      base64Array: ['data:image/png;base64,iVBORw0KGgo='],
      notifyHook: '',
      state: 's',
      botType: 'MID_JOURNEY',
    });
    add('/mj/submit/blend', {
      base64Array: ['data:image/png;base64,iVBORw0KGgo=', 'data:image/png;base64,iVBORw0KGgo='],
      dimensions: 'SQUARE',
    });
    add('/mj/submit/action', { taskId: 'x1', customId: 'MJ::JOB::upsample::1::abc' });
    add('/mj/task/list-by-condition', { ids: ['a', 'b'] });
    add('/suno/submit/music', {
      prompt: 'song',
      mv: 'chirp-v3-5',
      title: 't',
      tags: 'pop',
      continue_at: 10,
      continue_clip_id: '',
      task_id: '',
      make_instrumental: false,
    });
    add('/suno/submit/lyrics', { prompt: 'words' });
    add('/suno/fetch', { ids: ['a'], action: 'MUSIC' });
    // Each chat-like body again as a stream.
    for (const [path, body] of out.slice()) {
      if (/chat\/completions|\/messages$|\/responses|generateContent/.test(path))
        out.push([path.replace(':generateContent', ':streamGenerateContent?alt=sse'), { ...body, stream: true }]);
    }
    return out;
  }

  it("answers every one with a 2xx or a 4xx in the caller's shape, promptly, blaming no channel", { timeout: 300_000 }, async () => {
    const all = cases();
    const wrong: string[] = [];
    let next = 0;
    const headers = {
      authorization: `Bearer ${apiKey}`,
      'x-goog-api-key': apiKey,
      'mj-api-secret': apiKey,
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    };
    const worker = async () => {
      while (next < all.length) {
        const [path, body] = all[next++]!;
        const startedAt = Date.now();
        const what = `${path} ${JSON.stringify(body).slice(0, 240)}`;
        try {
          const res = await fetch(`${server.url}${path}`, {
            method: 'POST',
            headers,
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(10_000),
          });
          const text = await res.text();
          if (res.status >= 500) wrong.push(`${res.status} ${what} -> ${text.slice(0, 200)}`);
          else if (res.status >= 400 && !/"error"|"message"|"code"/.test(text)) wrong.push(`${res.status} without an error body: ${what}`);
          if (Date.now() - startedAt > 5000) wrong.push(`slow (${Date.now() - startedAt} ms): ${what}`);
        } catch (error) {
          wrong.push(`${String(error)}: ${what}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(all.length).toBeGreaterThan(14_000);
    expect(wrong.slice(0, 20)).toEqual([]);
    const channels = await server.ctx.storage.db.selectFrom('channels').select(['id', 'status']).execute();
    expect(channels.map((channel) => channel.status)).toEqual([1, 1, 1, 1, 1]);
  });
});
