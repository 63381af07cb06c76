import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countChatPromptTokens } from '../../src/relay/billing/token-count.js';
import { createRelayChannel, createRelayToken, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { billedState, createSdkCaller } from './sdk-setup.js';

/**
 * One local upstream speaking the counting and embedding wires: Anthropic count_tokens, Gemini
 * countTokens and batchEmbedContents, OpenAI embeddings. Counts are deterministic from what was
 * sent (so a test knows the provider's count was used), vectors from the text.
 */
interface CountUpstream {
  url: string;
  requests: Array<{ path: string; headers: http.IncomingHttpHeaders; body: any }>;
  /** Status of the next count answers (500: the provider's count fails). */
  countStatus: number;
  close(): Promise<void>;
}

const vectorOf = (text: string) => [text.length, text.charCodeAt(0) || 0, 0.5];
const claudeCount = (body: any) =>
  1000 + JSON.stringify(body.messages ?? []).length + JSON.stringify(body.system ?? '').length + JSON.stringify(body.tools ?? []).length;
const geminiCount = (body: any) => 2000 + JSON.stringify(body.generateContentRequest ?? body).length;

async function startCountUpstream(): Promise<CountUpstream> {
  const state = { requests: [] as CountUpstream['requests'], countStatus: 200 };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
      const path = req.url ?? '';
      state.requests.push({ path, headers: req.headers, body });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (path.endsWith('/v1/messages/count_tokens')) {
        return state.countStatus === 200
          ? send(200, { input_tokens: claudeCount(body) })
          : send(state.countStatus, { type: 'error', error: { type: 'api_error', message: 'count broke' } });
      }
      if (path.includes(':countTokens')) {
        return state.countStatus === 200
          ? send(200, { totalTokens: geminiCount(body) })
          : send(state.countStatus, { error: { code: 500, message: 'count broke', status: 'INTERNAL' } });
      }
      if (path.includes(':batchEmbedContents')) {
        return send(200, {
          embeddings: body.requests.map((request: any) => ({
            values: vectorOf(request.content.parts.map((part: any) => part.text).join('')),
          })),
        });
      }
      if (path.endsWith('/v1/embeddings')) {
        const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
        const promptTokens = inputs.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
        return send(200, {
          object: 'list',
          model: body.model,
          data: inputs.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) })),
          usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
        });
      }
      send(404, { error: { message: `unknown path ${path}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

describe('Anthropic count_tokens and Gemini countTokens / embedContent / batchEmbedContents on every channel kind', () => {
  let server: TestServer;
  let upstream: CountUpstream;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels = { claude: 0, gemini: 0, openai: 0 };

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startCountUpstream();
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ 'claude-count': 1, 'gemini-count': 1, 'gpt-count': 1, 'text-embed': 0.05, 'gemini-embed': 0.05 }),
    );
    caller = await createSdkCaller(server.ctx);
    channels.claude = await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant-count',
      baseURL: upstream.url,
      models: ['claude-count'],
    });
    channels.gemini = await createRelayChannel(server.ctx, {
      type: 24,
      key: 'gemini-count-key',
      baseURL: upstream.url,
      models: ['gemini-count', 'gemini-embed'],
    });
    channels.openai = await createRelayChannel(server.ctx, {
      type: 1,
      key: 'sk-openai-count',
      baseURL: upstream.url,
      models: ['gpt-count', 'text-embed'],
    });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.countStatus = 200;
  });

  const anthropic = () => new Anthropic({ apiKey: caller.apiKey, baseURL: server.url, maxRetries: 0 });
  const google = () => new GoogleGenAI({ apiKey: caller.apiKey, httpOptions: { baseUrl: server.url } });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'How many tokens is this sentence?' }];
  const tools: Anthropic.Tool[] = [
    {
      name: 'lookup',
      description: 'Looks a word up',
      input_schema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    },
  ];

  /** Counting is never billed: no consume log, no quota used, on any channel. */
  async function expectNothingBilled() {
    for (const channelId of Object.values(channels)) {
      const state = await billedState(server.ctx, { ...caller, channelId });
      expect(state.logs).toHaveLength(0);
      expect(state.userUsed).toBe(0);
    }
  }

  it('Anthropic SDK on a Claude channel: Anthropic counts the prompt fields it was sent, with the channel key; not billed', async () => {
    const counted = await anthropic().messages.countTokens({ model: 'claude-count', system: 'Be brief.', messages, tools });
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(sent.headers['x-api-key']).toBe('sk-ant-count');
    expect(Object.keys(sent.body).sort()).toEqual(['messages', 'model', 'system', 'tools']);
    expect(counted.input_tokens).toBe(claudeCount(sent.body));
    await expectNothingBilled();
  });

  it('Anthropic SDK on a Gemini channel: converted and counted by Gemini countTokens', async () => {
    const counted = await anthropic().messages.countTokens({ model: 'gemini-count', system: 'Be brief.', messages });
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toMatch(/\/models\/gemini-count:countTokens$/);
    expect(sent.body.generateContentRequest.model).toBe('models/gemini-count');
    expect(JSON.stringify(sent.body.generateContentRequest.contents)).toContain('How many tokens is this sentence?');
    expect(JSON.stringify(sent.body.generateContentRequest.systemInstruction)).toContain('Be brief.');
    expect(counted.input_tokens).toBe(geminiCount(sent.body));
    await expectNothingBilled();
  });

  it('Anthropic SDK on an OpenAI channel: counted locally with the tokenizer, no upstream call', async () => {
    const counted = await anthropic().messages.countTokens({ model: 'gpt-count', messages });
    expect(upstream.requests).toHaveLength(0);
    expect(counted.input_tokens).toBe(countChatPromptTokens([{ role: 'user', content: 'How many tokens is this sentence?' }]));
    const withTools = await anthropic().messages.countTokens({ model: 'gpt-count', messages, tools });
    expect(withTools.input_tokens).toBeGreaterThan(counted.input_tokens);
  });

  it("the provider's count failing falls back to the local count (200, not an error)", async () => {
    upstream.countStatus = 500;
    const counted = await anthropic().messages.countTokens({ model: 'claude-count', messages });
    expect(upstream.requests).toHaveLength(1);
    expect(counted.input_tokens).toBe(countChatPromptTokens([{ role: 'user', content: 'How many tokens is this sentence?' }]));
    const gemini = await google().models.countTokens({ model: 'gemini-count', contents: 'How many tokens is this sentence?' });
    expect(gemini.totalTokens).toBe(countChatPromptTokens([{ role: 'user', content: 'How many tokens is this sentence?' }]));
  });

  it('@google/genai countTokens on Gemini (native), Claude (converted) and OpenAI (local) channels', async () => {
    const native = await google().models.countTokens({ model: 'gemini-count', contents: 'Count me, please.' });
    const nativeSent = upstream.requests.at(-1)!;
    expect(nativeSent.path).toMatch(/\/v1beta\/models\/gemini-count:countTokens$/);
    expect(nativeSent.headers['x-goog-api-key']).toBe('gemini-count-key');
    expect(nativeSent.body.generateContentRequest.contents[0].parts[0].text).toBe('Count me, please.');
    expect(native.totalTokens).toBe(geminiCount(nativeSent.body));

    const onClaude = await google().models.countTokens({ model: 'claude-count', contents: 'Count me, please.' });
    const claudeSent = upstream.requests.at(-1)!;
    expect(claudeSent.path).toBe('/v1/messages/count_tokens');
    expect(JSON.stringify(claudeSent.body.messages)).toContain('Count me, please.');
    expect(claudeSent.body.messages[0].role).toBe('user');
    expect(onClaude.totalTokens).toBe(claudeCount(claudeSent.body));

    upstream.requests.length = 0;
    const local = await google().models.countTokens({ model: 'gpt-count', contents: 'Count me, please.' });
    expect(upstream.requests).toHaveLength(0);
    expect(local.totalTokens).toBe(countChatPromptTokens([{ role: 'user', content: 'Count me, please.' }]));
    await expectNothingBilled();
  });

  it("@google/genai embedContent on an OpenAI channel: OpenAI embeddings upstream, Gemini vectors back, billed the upstream's usage", async () => {
    const result = await google().models.embedContent({
      model: 'text-embed',
      contents: ['first text', 'second'],
      config: { outputDimensionality: 3 },
    });
    expect(result.embeddings?.map((item) => item.values)).toEqual([vectorOf('first text'), vectorOf('second')]);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.body).toMatchObject({ model: 'text-embed', input: ['first text', 'second'], dimensions: 3, encoding_format: 'float' });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.openai });
    expect(state.logs[0]!.prompt_tokens).toBe(Math.ceil('first text'.length / 4) + Math.ceil('second'.length / 4));
    expect(state.logs[0]!.model_name).toBe('text-embed');
  });

  it("@google/genai embedContent on a Gemini channel, and a raw :embedContent, both answered in Gemini's shape and billed", async () => {
    const result = await google().models.embedContent({ model: 'gemini-embed', contents: 'hello world' });
    expect(result.embeddings?.[0]?.values).toEqual(vectorOf('hello world'));
    expect(upstream.requests.at(-1)!.path).toMatch(/\/models\/gemini-embed:batchEmbedContents$/);
    const single = await fetch(`${server.url}/v1beta/models/gemini-embed:embedContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': caller.apiKey },
      body: JSON.stringify({ content: { parts: [{ text: 'one' }, { text: 'two' }] } }),
    });
    expect(single.status).toBe(200);
    expect(await single.json()).toEqual({ embedding: { values: vectorOf('one\ntwo') } });
    const state = await billedState(server.ctx, { ...caller, channelId: channels.gemini });
    expect(state.logs).toHaveLength(2);
    expect(state.logs.every((log) => log.prompt_tokens > 0 && log.quota > 0)).toBe(true);
  });

  it("bad input and refusals come back in the caller's format", async () => {
    // Anthropic route: Anthropic-shaped errors.
    const noMessages = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': caller.apiKey },
      body: JSON.stringify({ model: 'claude-count', messages: 'hi' }),
    });
    expect(noMessages.status).toBe(400);
    expect(await noMessages.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const badKey = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-nope' },
      body: JSON.stringify({ model: 'claude-count', messages }),
    });
    expect(badKey.status).toBe(401);
    expect(await badKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    await expect(
      anthropic().messages.countTokens({
        model: 'claude-count',
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 42 as unknown as string } }],
          },
        ],
      }),
    ).rejects.toMatchObject({ status: 400 });
    // A token limited to other models is refused the count too.
    const limited = await createRelayToken(server.ctx, caller.userId, { modelLimits: ['gpt-count'] });
    const refused = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': limited.apiKey },
      body: JSON.stringify({ model: 'claude-count', messages }),
    });
    expect(refused.status).toBe(403);
    expect((await refused.json()).type).toBe('error');

    // Gemini routes: Google-shaped errors.
    const gemini = (action: string, body: unknown) =>
      fetch(`${server.url}/v1beta/models/gemini-embed:${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': caller.apiKey },
        body: JSON.stringify(body),
      });
    for (const [action, body] of [
      ['embedContent', { content: 'text' }],
      ['embedContent', { content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] } }],
      ['batchEmbedContents', { requests: [] }],
      ['batchEmbedContents', { requests: [{ content: { parts: [] } }] }],
      ['countTokens', { generateContentRequest: 'x' }],
    ] as const) {
      const response = await gemini(action, body);
      expect(response.status, `${action} ${JSON.stringify(body)}`).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    }
    const unknown = await gemini('predict', {});
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe(404);
    expect(upstream.requests).toHaveLength(0);
  });
});
