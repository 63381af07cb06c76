import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutatedBodies } from '../helpers/hostile-values.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Wire = 'openai' | 'claude' | 'gemini';
type Json = Record<string, any>;

const answers: Record<Wire, Json> = {
  openai: {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'hello',
          tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: 5,
      completion_tokens: 3,
      total_tokens: 8,
      prompt_tokens_details: { cached_tokens: 1 },
      completion_tokens_details: { reasoning_tokens: 1 },
    },
  },
  claude: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'm',
    content: [
      { type: 'thinking', thinking: 'hm', signature: 's' },
      { type: 'text', text: 'hello' },
      { type: 'tool_use', id: 'tu1', name: 'f', input: { a: 1 } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 3, cache_read_input_tokens: 1, cache_creation_input_tokens: 1 },
  },
  gemini: {
    candidates: [
      {
        content: { role: 'model', parts: [{ text: 'hello' }, { functionCall: { name: 'f', args: { a: 1 } } }] },
        finishReason: 'STOP',
        index: 0,
      },
    ],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8, thoughtsTokenCount: 1 },
    modelVersion: 'm',
  },
};

/** The answer as its wire streams it: OpenAI chunks, Gemini's one event per answer, Claude's event sequence. */
function streamed(wire: Wire, body: Json): string {
  if (wire === 'openai') {
    const choices = (Array.isArray(body.choices) ? body.choices : [body.choices]).map((choice: any) =>
      choice && typeof choice === 'object' ? { ...choice, delta: choice.message, message: undefined } : choice,
    );
    return `data: ${JSON.stringify({ ...body, object: 'chat.completion.chunk', choices })}\n\ndata: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], usage: body.usage })}\n\ndata: [DONE]\n\n`;
  }
  if (wire === 'gemini') return `data: ${JSON.stringify(body)}\n\n`;
  const event = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let out = event('message_start', { message: { ...body, content: [] } });
  (Array.isArray(body.content) ? body.content : [body.content]).forEach((block: any, index: number) => {
    const isObject = block && typeof block === 'object';
    out += event('content_block_start', {
      index,
      content_block: isObject
        ? { ...block, ...(block.type === 'text' ? { text: '' } : {}), ...(block.type === 'tool_use' ? { input: {} } : {}) }
        : block,
    });
    if (isObject && block.type === 'text') out += event('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    if (isObject && block.type === 'tool_use')
      out += event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    out += event('content_block_stop', { index });
  });
  return (
    out +
    event('message_delta', { delta: { stop_reason: body.stop_reason, stop_sequence: body.stop_sequence }, usage: body.usage }) +
    event('message_stop', {})
  );
}

/**
 * Upstream answers are hostile input too. An OpenAI-wire, a Claude and a Gemini upstream answer
 * well-formed chat answers with one field at a time (down to five levels) replaced by a hostile value,
 * stream and not, to clients of every format (OpenAI chat, Anthropic Messages, Gemini, Responses):
 * each answer is a 2xx or a 502 that blames the channel, never a 500 or a hang, and the ledger
 * balances (the user's quota plus the logged quota is what the user had).
 */
describe.each([false, true])('upstream answers with one field made hostile (stream: %s)', (isStream) => {
  const queues: Record<Wire, Json[]> = {
    openai: mutatedBodies(answers.openai, 5),
    claude: mutatedBodies(answers.claude, 5),
    gemini: mutatedBodies(answers.gemini, 5),
  };
  const sent: Record<Wire, number> = { openai: 0, claude: 0, gemini: 0 };
  const initialQuota = 1e12;
  let upstream: http.Server;
  let server: TestServer;
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '';
        const wire: Wire = path.includes('/messages') ? 'claude' : path.includes(':') ? 'gemini' : 'openai';
        const body = queues[wire][sent[wire]++ % queues[wire].length]!;
        res.writeHead(200, { 'content-type': isStream ? 'text/event-stream' : 'application/json' });
        res.end(isStream ? streamed(wire, body) : JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    server = await startTestServer();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-u': 1, 'claude-u': 1, 'gem-u': 1 }));
    userId = await createRelayUser(server.ctx, { quota: initialQuota });
    apiKey = (await createRelayToken(server.ctx, userId, { remainQuota: 1e11 })).apiKey;
    await createRelayChannel(server.ctx, { type: 1, key: 'k', baseURL: url, models: ['gpt-u'], autoBan: false });
    await createRelayChannel(server.ctx, { type: 14, key: 'k', baseURL: url, models: ['claude-u'], autoBan: false });
    await createRelayChannel(server.ctx, { type: 24, key: 'k', baseURL: url, models: ['gem-u'], autoBan: false });
  });
  afterAll(async () => {
    await server?.stop();
    upstream?.close();
  });

  it('answers 2xx or 502, never 500 or a hang, and the ledger balances', { timeout: 300_000 }, async () => {
    const clients: Array<[string, (model: string) => Json]> = [
      [
        '/v1/chat/completions',
        (model) => ({
          model,
          stream: isStream,
          messages: [{ role: 'user', content: 'hi' }],
          tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
        }),
      ],
      [
        '/v1/messages',
        (model) => ({
          model,
          stream: isStream,
          max_tokens: 50,
          messages: [{ role: 'user', content: 'hi' }],
          tools: [{ name: 'f', input_schema: { type: 'object' } }],
        }),
      ],
      [
        isStream ? '/v1beta/models/MODEL:streamGenerateContent?alt=sse' : '/v1beta/models/MODEL:generateContent',
        () => ({
          contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
          tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' } }] }],
        }),
      ],
      [
        '/v1/responses',
        (model) => ({ model, stream: isStream, input: 'hi', tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }] }),
      ],
    ];
    const wrong: string[] = [];
    const headers = {
      authorization: `Bearer ${apiKey}`,
      'x-goog-api-key': apiKey,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
    };
    for (const [model, wire] of [
      ['gpt-u', 'openai'],
      ['claude-u', 'claude'],
      ['gem-u', 'gemini'],
    ] as const) {
      for (const [route, bodyFor] of clients) {
        for (let i = 0; i < queues[wire].length; i += 1) {
          const path = route.replace('MODEL', model);
          const upstreamAnswer = JSON.stringify(queues[wire][sent[wire] % queues[wire].length]).slice(0, 200);
          const startedAt = Date.now();
          try {
            const res = await fetch(`${server.url}${path}`, {
              method: 'POST',
              headers,
              body: JSON.stringify(bodyFor(model)),
              signal: AbortSignal.timeout(10_000),
            });
            const text = await res.text();
            if (res.status !== 200 && res.status !== 502)
              wrong.push(`${res.status} ${path} ${model} upstream=${upstreamAnswer} -> ${text.slice(0, 160)}`);
            if (Date.now() - startedAt > 5000) wrong.push(`slow ${path} ${model} upstream=${upstreamAnswer}`);
          } catch (error) {
            wrong.push(`${String(error)} ${path} ${model} upstream=${upstreamAnswer}`);
          }
        }
      }
    }
    expect(wrong.slice(0, 20)).toEqual([]);
    await flushRelay(server.ctx);
    const user = await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow();
    const logs = await server.ctx.storage.db
      .selectFrom('logs')
      .select('quota')
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .execute();
    expect(logs.length).toBeGreaterThan(5000);
    expect(Number(user.quota) + logs.reduce((sum, log) => sum + Number(log.quota), 0)).toBe(initialQuota);
  });
});
