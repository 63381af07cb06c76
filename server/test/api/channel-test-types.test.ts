import { createHmac, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/lib/session.js';
import { channelTypeSlugs } from '../../src/relay/providers/registry.js';
import { baiduTokenCache } from '../../src/relay/providers/baidu/token.js';
import { vertexTokenCache } from '../../src/relay/providers/vertex/token.js';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  readFixture,
  startFixtureUpstream,
  type FixtureReply,
  type FixtureRequest,
  type FixtureUpstream,
} from '../providers/helpers/fixture-upstream.js';

/**
 * The admin channel test of every type with an adapter, against a local server speaking that
 * type's wire: what the server received (converted, signed, at the provider's path), that a
 * healthy channel tests healthy, and that a bad key tests as a bad key (auto-disabled).
 */

const json = (body: unknown, status = 200): FixtureReply => ({
  status,
  contentType: 'application/json',
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const openAiChat = json({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
});
const openAiEmbedding = json({
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
  model: 'm',
  usage: { prompt_tokens: 1, total_tokens: 1 },
});
const openAiBadKey = json(
  { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
  401,
);
/** Issued credentials are cached: each case starts without them, so the bad key really is sent. */
const clearTokenCaches = () => {
  vertexTokenCache.clear();
  baiduTokenCache.clear();
};
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

interface TypeCase {
  type: number;
  key: string | ((url: string) => string);
  other?: string;
  model: string;
  /** The base URL relative to the local server ('' = its root). */
  basePath?: string;
  /** The request path the provider is called at (the last request when several are made). */
  path: string | RegExp;
  /** Its method (POST when absent). */
  method?: string;
  healthy: FixtureReply[];
  badKey: FixtureReply[];
  /** Provider-specific checks of the request received. */
  check?(request: FixtureRequest): void;
}

const chatBody = (request: FixtureRequest) => expect(request.json).toMatchObject({ messages: [{ role: 'user', content: 'hi' }] });
const bearer = (key: string) => (request: FixtureRequest) => {
  expect(request.headers.authorization).toBe(`Bearer ${key}`);
  chatBody(request);
};
const openAiCase = (type: number, model: string, path = '/v1/chat/completions'): TypeCase => ({
  type,
  key: `key-${type}`,
  model,
  path,
  healthy: [openAiChat],
  badKey: [openAiBadKey],
  check: bearer(`key-${type}`),
});

const cases: TypeCase[] = [
  openAiCase(1, 'gpt-4o-mini'),
  {
    type: 3,
    key: 'azure-key',
    other: '2024-10-21',
    model: 'gpt-4o-mini',
    path: '/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21',
    healthy: [openAiChat],
    badKey: [openAiBadKey],
    check: (request) => expect(request.headers['api-key']).toBe('azure-key'),
  },
  {
    type: 4,
    key: '',
    model: 'llama3.1',
    path: '/api/chat',
    healthy: [json(readFixture('ollama', 'chat.json'))],
    badKey: [json({ error: 'unauthorized' }, 401)],
    check: (request) =>
      expect(request.json).toMatchObject({ model: 'llama3.1', messages: [{ role: 'user', content: 'hi' }], stream: false }),
  },
  { ...openAiCase(8, 'gpt-4o-mini', '/custom/chat'), basePath: '/custom/chat' },
  {
    type: 11,
    key: 'AIza-palm',
    model: 'chat-bison-001',
    path: '/v1beta2/models/chat-bison-001:generateMessage',
    healthy: [json(readFixture('palm', 'generate-message.json'))],
    badKey: [json({ error: { code: 403, message: 'API key not valid', status: 'PERMISSION_DENIED' } }, 403)],
    check: (request) => expect(request.json.prompt.messages).toEqual([{ author: '0', content: 'hi' }]),
  },
  {
    type: 14,
    key: 'sk-ant-channel',
    model: 'claude-sonnet-4-20250514',
    path: '/v1/messages',
    healthy: [json(readFixture('anthropic', 'chat-response.json'))],
    badKey: [json({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }, 401)],
    check: (request) => {
      expect(request.headers['x-api-key']).toBe('sk-ant-channel');
      expect(request.headers['anthropic-version']).toBe('2023-06-01');
      expect(request.json).toMatchObject({
        model: 'claude-sonnet-4-20250514',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 16,
      });
    },
  },
  {
    // An access token from the key pair first (cached), then chat with the token in the query.
    type: 15,
    key: 'baidu-api-key|baidu-secret',
    model: 'ERNIE-4.0-8K',
    path: /^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/chat\/completions_pro\?access_token=24\./,
    healthy: [json(readFixture('baidu', 'token.json')), json(readFixture('baidu', 'chat.json'))],
    badKey: [json(readFixture('baidu', 'token-error.json'), 401)],
    check: (request) => expect(request.json).toMatchObject({ messages: [{ role: 'user', content: 'hi' }], max_output_tokens: 16 }),
  },
  {
    // Errors come back with HTTP 200: a rejected token is still a bad key.
    type: 16,
    key: 'zhipu-id.zhipu-secret',
    model: 'chatglm_pro',
    path: '/api/paas/v3/model-api/chatglm_pro/invoke',
    healthy: [json(readFixture('zhipu-v3', 'invoke.json'))],
    badKey: [json(readFixture('zhipu-v3', 'invoke-auth-error.json'))],
    check: (request) => {
      expect(request.headers.authorization).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(request.json).toMatchObject({ prompt: [{ role: 'user', content: 'hi' }] });
    },
  },
  openAiCase(17, 'qwen-plus', '/compatible-mode/v1/chat/completions'),
  openAiCase(19, '360gpt-pro'),
  openAiCase(20, 'openai/gpt-4o-mini'),
  {
    type: 24,
    key: 'AIza-gemini',
    model: 'gemini-2.5-flash',
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    healthy: [json(readFixture('gemini', 'generate-text.json'))],
    // Google answers a bad key with 400 API_KEY_INVALID: still the key's fault.
    badKey: [
      json(
        {
          error: {
            code: 400,
            message: 'API key not valid. Please pass a valid API key.',
            status: 'INVALID_ARGUMENT',
            details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
          },
        },
        400,
      ),
    ],
    check: (request) => {
      expect(request.headers['x-goog-api-key']).toBe('AIza-gemini');
      expect(request.json.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
    },
  },
  {
    type: 21,
    key: 'aip-key',
    other: 'lib-42',
    model: 'gpt-4o-mini',
    path: '/api/library/ask',
    healthy: [json(readFixture('aiproxy-library', 'ask.json'))],
    badKey: [json(readFixture('aiproxy-library', 'error-key.json'))],
    check: (request) => expect(request.json).toEqual({ model: 'gpt-4o-mini', query: 'hi', libraryId: 'lib-42', stream: false }),
  },
  {
    ...openAiCase(22, 'fastgpt'),
    healthy: [json(readFixture('fastgpt', 'chat.json'))],
    check: (request) => expect(request.json).toMatchObject({ detail: false, messages: [{ role: 'user', content: 'hi' }] }),
  },
  {
    type: 23,
    key: '1300000000|AKIDhunyuan|hunyuan-secret',
    model: 'hunyuan-lite',
    path: '/',
    healthy: [json(readFixture('hunyuan', 'chat.json'))],
    badKey: [
      json({
        Response: {
          Error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated.' },
          RequestId: 'r-1',
        },
      }),
    ],
    check: (request) => {
      expect(request.headers['x-tc-action']).toBe('ChatCompletions');
      expect(request.headers.authorization).toMatch(
        /^TC3-HMAC-SHA256 Credential=AKIDhunyuan\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/,
      );
      expect(request.json).toMatchObject({ Model: 'hunyuan-lite', Messages: [{ Role: 'user', Content: 'hi' }] });
    },
  },
  openAiCase(25, 'moonshot-v1-8k'),
  openAiCase(26, 'glm-4-flash', '/api/paas/v4/chat/completions'),
  openAiCase(31, 'yi-lightning'),
  {
    type: 33,
    key: 'AKIDEXAMPLE|secret-key|us-east-1',
    model: 'claude-3-5-sonnet-20241022',
    path: /^\/model\/[^/]*claude-3-5-sonnet-20241022[^/]*\/invoke$/,
    healthy: [json(readFixture('aws-bedrock', 'invoke-response.json'))],
    badKey: [json(readFixture('aws-bedrock', 'error-access-denied.json'), 403)],
    check: (request) => {
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=.+, Signature=[0-9a-f]{64}$/,
      );
      expect(request.json).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 16 });
    },
  },
  {
    type: 34,
    key: 'co-key',
    model: 'command-r',
    path: '/v1/chat',
    healthy: [json(readFixture('cohere', 'chat.json'))],
    badKey: [json({ message: 'invalid api token' }, 401)],
    check: (request) => expect(request.json).toMatchObject({ message: 'hi', model: 'command-r' }),
  },
  {
    // A task channel: the test is a free fetch of no task (Suno-API answers success with an empty list).
    type: 36,
    key: 'suno-key',
    model: 'suno_music',
    path: '/suno/fetch',
    healthy: [json({ code: 'success', message: '', data: [] })],
    badKey: [openAiBadKey],
    check: (request) => {
      expect(request.headers.authorization).toBe('Bearer suno-key');
      expect(request.json).toEqual({ ids: [] });
    },
  },
  ...([2, 5] as const).map((type): TypeCase => ({
    // Midjourney-Proxy: the test lists no task (free), with the key in mj-api-secret.
    type,
    key: 'mj-secret',
    model: 'mj_imagine',
    path: '/mj/task/list-by-condition',
    healthy: [json([])],
    badKey: [json({ code: 4, description: 'invalid mj-api-secret' }, 401)],
    check: (request) => {
      expect(request.headers['mj-api-secret']).toBe('mj-secret');
      expect(request.json).toEqual({ ids: [] });
    },
  })),
  {
    type: 37,
    key: 'app-chat',
    other: 'chat',
    model: 'dify-chat',
    path: '/v1/chat-messages',
    healthy: [json(readFixture('dify', 'chat-blocking.json'))],
    badKey: [json({ code: 'unauthorized', message: 'Access token is invalid', status: 401 }, 401)],
    check: (request) => expect(request.json).toMatchObject({ query: 'hi', response_mode: 'blocking' }),
  },
  {
    type: 38,
    key: 'jina_key',
    model: 'jina-embeddings-v3',
    path: '/v1/embeddings',
    healthy: [json(readFixture('jina', 'embeddings.json'))],
    badKey: [openAiBadKey],
    check: (request) => expect(request.json).toMatchObject({ model: 'jina-embeddings-v3', input: 'hello' }),
  },
  {
    type: 39,
    key: 'cf-token',
    other: 'acc123',
    model: '@cf/meta/llama-3.1-8b-instruct',
    path: '/client/v4/accounts/acc123/ai/v1/chat/completions',
    healthy: [openAiChat],
    badKey: [json({ success: false, errors: [{ code: 10000, message: 'Authentication error' }] }, 401)],
    check: bearer('cf-token'),
  },
  {
    ...openAiCase(46, 'ernie-4.0-8k', '/v2/chat/completions'),
    key: 'bce-v3/ALTAK-probe/secret|app-7',
    healthy: [json(readFixture('baidu-v2', 'chat.json'))],
    check: (request) => {
      expect(request.headers.authorization).toBe('Bearer bce-v3/ALTAK-probe/secret');
      expect(request.headers.appid).toBe('app-7');
    },
  },
  {
    ...openAiCase(35, 'MiniMax-Text-01', '/v1/text/chatcompletion_v2'),
    healthy: [json(readFixture('minimax', 'chat.json'))],
    badKey: [json(readFixture('minimax', 'chat-auth-error.json'))],
  },
  openAiCase(40, 'Qwen/Qwen2.5-7B-Instruct'),
  {
    type: 41,
    model: 'gemini-2.5-flash',
    other: 'us-central1',
    path: '/v1/projects/demo-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    key: (url) =>
      JSON.stringify({
        type: 'service_account',
        project_id: 'demo-project',
        private_key_id: 'kid-probe',
        private_key: privateKey,
        client_email: 'probe@demo-project.iam.gserviceaccount.com',
        token_uri: `${url}/token`,
      }),
    healthy: [json(readFixture('vertex', 'token.json')), json(readFixture('vertex', 'gemini-generate.json'))],
    badKey: [json({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }, 400)],
    check: (request) => expect(request.headers.authorization).toBe('Bearer ya29.c.vertex-test-token-1'),
  },
  openAiCase(42, 'mistral-small-latest'),
  openAiCase(43, 'deepseek-chat'),
  {
    type: 44,
    key: 'm3e-key',
    model: 'm3e-base',
    path: /\/embeddings$/,
    healthy: [openAiEmbedding],
    badKey: [openAiBadKey],
    check: (request) => expect(request.json).toMatchObject({ model: 'm3e-base', input: 'hello' }),
  },
  openAiCase(45, 'doubao-seed-1-6-250615', '/api/v3/chat/completions'),
  openAiCase(47, 'qwen2.5-instruct'),
  openAiCase(48, 'grok-3'),
  {
    // A video channel: the test lists one task (free), with a JWT the key signs; Kling answers a bad one 401.
    type: 50,
    key: 'ak-probe|sk-probe',
    model: 'kling-v1-6',
    method: 'GET',
    path: '/v1/videos/text2video?pageNum=1&pageSize=1',
    healthy: [json({ code: 0, message: 'SUCCEED', request_id: 'r1', data: [] })],
    badKey: [json({ code: 1004, message: 'Authorization is invalid', request_id: 'r2' }, 401)],
    check: (request) => {
      const [header, payload, signature] = String(request.headers.authorization)
        .replace(/^Bearer /, '')
        .split('.');
      expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
      expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toMatchObject({ iss: 'ak-probe' });
      expect(signature).toBe(createHmac('sha256', 'sk-probe').update(`${header}.${payload}`).digest('base64url'));
    },
  },
];

describe('the channel test of every channel type, against its own wire', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    const id = await createRelayUser(server.ctx, { role: 10 });
    admin = server.client();
    admin.cookie = `session=${signSession('test-session-secret', id, 0)}`;
    admin.userId = id;
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
  });
  afterAll(async () => {
    clearTokenCaches();
    await server.stop();
    await upstream.close();
  });

  it('covers every type that has an adapter', () => {
    // iFlytek Spark (18) speaks a signed WebSocket: its channel test runs against its own server in test/relay/sdk-spark.test.ts.
    const tested = new Set([...cases.map((entry) => entry.type), 18]);
    expect(
      Object.keys(channelTypeSlugs)
        .map(Number)
        .filter((type) => !tested.has(type)),
    ).toEqual([]);
  });

  it.each(cases)('type $type: a healthy channel tests healthy; a bad key tests as a bad key', async (entry) => {
    clearTokenCaches();
    const key = typeof entry.key === 'function' ? entry.key(upstream.url) : entry.key;
    const baseURL = `${upstream.url}${entry.basePath ?? ''}`;
    const id = await createRelayChannel(server.ctx, { type: entry.type, key, baseURL, models: [entry.model] });
    if (entry.other) await server.ctx.storage.db.updateTable('channels').set({ other: entry.other }).where('id', '=', id).execute();

    for (const reply of entry.healthy) upstream.reply(reply);
    const before = upstream.requests.length;
    const healthy = await admin.get(`/api/channel/test/${id}`);
    expect(healthy.body, healthy.text).toMatchObject({ success: true, message: '', data: null, time: expect.any(Number) });
    const received = upstream.requests.slice(before);
    expect(received).toHaveLength(entry.healthy.length);
    const call = received.at(-1)!;
    expect(call.method).toBe(entry.method ?? 'POST');
    if (typeof entry.path === 'string') expect(decodeURIComponent(call.url)).toBe(entry.path);
    else expect(decodeURIComponent(call.url)).toMatch(entry.path);
    entry.check?.(call);

    clearTokenCaches();
    for (const reply of entry.badKey) upstream.reply(reply);
    const bad = await admin.get(`/api/channel/test/${id}`);
    expect(bad.body.success, bad.text).toBe(false);
    // As new-api answers a failed test: the seconds it took beside the message.
    expect(bad.body.time, bad.text).toEqual(expect.any(Number));
    const row = await server.ctx.storage.db
      .selectFrom('channels')
      .select(['status', 'other_info'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    // A key failure auto-disables the channel (status 3) with the reason.
    expect(row.status, bad.text).toBe(3);
    expect(row.other_info).toContain('测试失败');
  });

  it('a 2xx that is not an answer (an OpenAI error body, or not JSON) tests as failed', async () => {
    const id = await createRelayChannel(server.ctx, { type: 1, key: 'k', baseURL: upstream.url, models: ['gpt-4o-mini'] });
    upstream.reply(json({ error: { message: 'quota exhausted', type: 'insufficient_quota' } }));
    expect((await admin.get(`/api/channel/test/${id}`)).body).toMatchObject({
      success: false,
      message: expect.stringContaining('quota exhausted'),
    });
    upstream.reply({ status: 200, contentType: 'text/html', body: '<html>captive portal</html>' });
    expect((await admin.get(`/api/channel/test/${id}`)).body).toMatchObject({
      success: false,
      message: expect.stringContaining('不是 JSON'),
    });
  });

  it('fetch_models for an unsaved channel passes its other (Cloudflare account id) and uses the OpenAI list elsewhere', async () => {
    upstream.reply(json(readFixture('cloudflare', 'models.json')));
    const cloudflare = await admin.post('/api/channel/fetch_models', {
      type: 39,
      key: 'cf-token',
      base_url: upstream.url,
      other: 'acc-unsaved',
    });
    expect(cloudflare.body.success, cloudflare.text).toBe(true);
    expect(cloudflare.body.data.length).toBeGreaterThan(0);
    expect(upstream.requests.at(-1)).toMatchObject({
      method: 'GET',
      url: expect.stringMatching(/^\/client\/v4\/accounts\/acc-unsaved\/ai\/models\/search/),
    });
    upstream.reply(json({ object: 'list', data: [{ id: 'gpt-4o' }, { id: 42 }, { id: 'gpt-4o-mini' }] }));
    const openai = await admin.post('/api/channel/fetch_models', { type: 1, key: 'sk-x', base_url: upstream.url });
    expect(openai.body).toMatchObject({ success: true, data: ['gpt-4o', 'gpt-4o-mini'] });
    expect(upstream.requests.at(-1)).toMatchObject({ method: 'GET', url: '/v1/models', headers: { authorization: 'Bearer sk-x' } });
    upstream.reply(openAiBadKey);
    const refused = await admin.post('/api/channel/fetch_models', { type: 1, key: 'sk-bad', base_url: upstream.url });
    expect(refused.body).toMatchObject({ success: false, message: expect.stringContaining('Incorrect API key') });
  });
});
