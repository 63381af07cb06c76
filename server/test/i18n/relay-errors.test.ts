import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture, startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';

/**
 * Relay errors are English by default (what SDK users expect) and Chinese for `Accept-Language: zh*`,
 * in every error shape; `type` and `code` (and the status) never change with the language.
 */
describe('relay errors in the caller\u2019s language', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFixtureUpstream();
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    const userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    apiKey = (await createRelayToken(server.ctx, userId)).apiKey;
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-openai', baseURL: upstream.url, models: ['gpt-late'], autoBan: false });
    await createRelayChannel(server.ctx, {
      type: 14,
      key: 'sk-ant-claude',
      baseURL: upstream.url,
      models: ['claude-late'],
      autoBan: false,
    });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  /** One request in three languages: none (English), Chinese, and an English browser's header. */
  async function inLanguages(send: (headers: Record<string, string>) => Promise<Response>) {
    const answers = [];
    const languages: Array<Record<string, string>> = [
      {},
      { 'accept-language': 'zh-CN,zh;q=0.9,en;q=0.8' },
      { 'accept-language': 'en-US,en;q=0.9' },
    ];
    for (const headers of languages) {
      const response = await send(headers);
      answers.push({ status: response.status, body: await response.json() });
    }
    const [plain, chinese, english] = answers;
    expect(english).toEqual(plain);
    expect(chinese!.status).toBe(plain!.status);
    return { english: plain!, chinese: chinese! };
  }

  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const chatBody = { model: 'gpt-late', messages: [{ role: 'user', content: 'hi' }] };

  it('OpenAI shape on the direct lane (JSON chat completions)', async () => {
    const { english, chinese } = await inLanguages((headers) =>
      post('/v1/chat/completions', chatBody, { authorization: 'Bearer sk-not-a-token', ...headers }),
    );
    expect(english).toEqual({
      status: 401,
      body: { error: { message: 'Invalid token', type: 'authentication_error', param: null, code: 'invalid_api_key' } },
    });
    expect(chinese.body).toEqual({ error: { ...english.body.error, message: '无效的令牌' } });
  });

  it('OpenAI shape on Fastify routes: multipart audio, the model route and the /pg playground', async () => {
    const audio = await inLanguages((headers) => post('/v1/audio/transcriptions', {}, { authorization: `Bearer ${apiKey}`, ...headers }));
    expect(audio.english).toEqual({
      status: 400,
      body: {
        error: { message: 'The request must be multipart/form-data', type: 'invalid_request_error', param: null, code: 'invalid_request' },
      },
    });
    expect(audio.chinese.body).toEqual({ error: { ...audio.english.body.error, message: '请求必须是 multipart/form-data' } });

    const model = await inLanguages((headers) =>
      fetch(`${server.url}/v1/models/no-such-model`, { headers: { authorization: `Bearer ${apiKey}`, ...headers } }),
    );
    expect(model.english.status).toBe(404);
    expect(model.english.body.error.message).toBe('The model no-such-model does not exist');
    expect(model.chinese.body).toEqual({ error: { ...model.english.body.error, message: '模型 no-such-model 不存在' } });

    const playground = await inLanguages((headers) => post('/pg/chat/completions', chatBody, headers));
    expect(playground.english.status).toBe(401);
    expect(playground.english.body.error.message).toBe('Not signed in, or the session has expired. Please sign in again');
    expect(playground.chinese.body).toEqual({ error: { ...playground.english.body.error, message: '未登录或登录已过期，请重新登录' } });
  });

  it('Anthropic shape on /v1/messages', async () => {
    const { english, chinese } = await inLanguages((headers) =>
      post(
        '/v1/messages',
        { model: 'claude-late', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
        { 'x-api-key': 'sk-not-a-token', 'anthropic-version': '2023-06-01', ...headers },
      ),
    );
    expect(english).toEqual({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'Invalid token' } } });
    expect(chinese.body).toEqual({ type: 'error', error: { type: 'authentication_error', message: '无效的令牌' } });
  });

  it('Google shape on the Gemini routes', async () => {
    const auth = await inLanguages((headers) =>
      post(
        '/v1beta/models/gemini-late:generateContent',
        { contents: [{ parts: [{ text: 'hi' }] }] },
        { 'x-goog-api-key': 'not-a-token', ...headers },
      ),
    );
    expect(auth.english).toEqual({ status: 401, body: { error: { code: 401, message: 'Invalid token', status: 'UNAUTHENTICATED' } } });
    expect(auth.chinese.body).toEqual({ error: { code: 401, message: '无效的令牌', status: 'UNAUTHENTICATED' } });

    const action = await inLanguages((headers) =>
      post('/v1beta/models/gemini-late:rewriteContent', {}, { 'x-goog-api-key': apiKey.slice(3), ...headers }),
    );
    expect(action.english).toEqual({
      status: 404,
      body: { error: { code: 404, message: 'Unsupported action rewriteContent', status: 'NOT_FOUND' } },
    });
    expect(action.chinese.body).toEqual({ error: { code: 404, message: '不支持的操作 rewriteContent', status: 'NOT_FOUND' } });
  });

  it('OpenAI Responses shape on /v1/responses', async () => {
    const { english, chinese } = await inLanguages((headers) =>
      post('/v1/responses', { model: 'gpt-late', input: 'hi' }, { authorization: 'Bearer sk-not-a-token', ...headers }),
    );
    expect(english).toEqual({
      status: 401,
      body: { error: { message: 'Invalid token', type: 'authentication_error', param: null, code: 'invalid_api_key' } },
    });
    expect(chinese.body).toEqual({ error: { ...english.body.error, message: '无效的令牌' } });
  });

  it('Midjourney-Proxy and Suno-API shapes on the task routes', async () => {
    const drawing = await inLanguages((headers) =>
      post('/mj/submit/imagine', { prompt: 'a cat' }, { authorization: 'Bearer sk-not-a-token', ...headers }),
    );
    expect(drawing.english).toEqual({ status: 401, body: { code: 4, description: 'Invalid token', result: null, properties: {} } });
    expect(drawing.chinese.body).toEqual({ ...drawing.english.body, description: '无效的令牌' });

    const music = await inLanguages((headers) =>
      post('/suno/submit/music', { prompt: 'a song' }, { authorization: 'Bearer sk-not-a-token', ...headers }),
    );
    expect(music.english).toEqual({ status: 401, body: { code: 'error', message: 'Invalid token', data: null } });
    expect(music.chinese.body).toEqual({ ...music.english.body, message: '无效的令牌' });
  });

  it('an error after a stream has begun: the OpenAI error event and the Anthropic error event', async () => {
    const chunk = `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-late', choices: [{ index: 0, delta: { content: 'Par' }, finish_reason: null }] })}\n\n`;
    const failing = `${chunk}data: ${JSON.stringify({ error: { message: 'Provider returned error', code: 502 } })}\n\n`;
    const openAiFrame = async (headers: Record<string, string>) => {
      upstream.reply({ status: 200, contentType: 'text/event-stream', body: failing });
      const response = await post('/v1/chat/completions', { ...chatBody, stream: true }, { authorization: `Bearer ${apiKey}`, ...headers });
      expect(response.status).toBe(200);
      const text = await response.text();
      return JSON.parse(/data: (\{"error".*)\n/.exec(text)![1]!).error;
    };
    const english = await openAiFrame({});
    expect(english).toEqual({
      message: 'The upstream service failed. Please try again later or contact the administrator',
      type: 'upstream_error',
      param: null,
      code: 'upstream_error',
    });
    expect(await openAiFrame({ 'accept-language': 'zh-CN' })).toEqual({ ...english, message: '上游服务出错，请稍后再试或联系管理员' });

    const claudeFrame = async (headers: Record<string, string>) => {
      upstream.reply({ status: 200, contentType: 'text/event-stream', body: readFixture('anthropic', 'stream-error.chunks.txt') });
      const response = await post(
        '/v1/messages',
        { model: 'claude-late', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] },
        { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01', ...headers },
      );
      const text = await response.text();
      expect(text).toContain('"text":"Hel"');
      return JSON.parse(/event: error\ndata: (.*)\n\n$/.exec(text)![1]!);
    };
    const claudeEnglish = await claudeFrame({});
    expect(claudeEnglish.error.message).toMatch(/^The upstream service/);
    const claudeChinese = await claudeFrame({ 'accept-language': 'zh' });
    expect(claudeChinese.error.type).toBe(claudeEnglish.error.type);
    expect(claudeChinese.error.message).toMatch(/^上游服务/);
  });
});
