import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const origin = 'http://127.0.0.1:5999';
const preflight = (server: TestServer, path: string, headers = 'authorization, content-type, x-stainless-os') =>
  fetch(`${server.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });

/** The relay answers browsers from any origin (preflight and answers); /api and the console stay same-origin. */
describe('CORS on the relay', () => {
  let server: TestServer;
  let upstream: MockOpenAi;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startMockOpenAi();
    await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-cors': 1 }));
    const userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
    apiKey = (await createRelayToken(server.ctx, userId, { remainQuota: 5_000_000 })).apiKey;
    await createRelayChannel(server.ctx, { type: 1, key: 'sk-upstream', baseURL: upstream.url, models: ['gpt-cors'] });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  it('answers preflights on every relay family with 204, any origin, the asked headers, no token', async () => {
    for (const path of [
      '/v1/chat/completions',
      '/v1/messages',
      '/v1/responses',
      '/v1beta/models/gemini-2.0-flash:generateContent',
      '/mj/submit/imagine',
      '/mj-fast/mj/submit/imagine',
      '/suno/submit/music',
      '/pg/chat/completions',
      '/v1/models',
    ]) {
      const res = await preflight(server, path);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type, x-stainless-os');
      expect(res.headers.get('access-control-max-age')).toBe('86400');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    // No list asked (or a malformed one): the headers the SDKs send.
    const plain = await fetch(`${server.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin } });
    expect(plain.headers.get('access-control-allow-headers')).toContain('anthropic-version');
    expect(plain.headers.get('access-control-allow-headers')).toContain('x-goog-api-key');
    expect(plain.headers.get('access-control-allow-headers')).toContain('cache-control');
    const odd = await preflight(server, '/v1/chat/completions', 'authorization; x-evil="1"');
    expect(odd.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });

  it('every relay answer carries the origin header: a direct-lane JSON chat, a stream, an error, the model list', async () => {
    const chat = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin, authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-cors', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('access-control-allow-origin')).toBe('*');
    expect(chat.headers.get('access-control-expose-headers')).toContain('Retry-After');
    expect(chat.headers.get('access-control-expose-headers')).toContain('X-ModelGate-Cache');
    const stream = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin, authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-cors', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(stream.headers.get('access-control-allow-origin')).toBe('*');
    expect(await stream.text()).toContain('data: [DONE]');
    const denied = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin, authorization: 'Bearer sk-nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
    const models = await fetch(`${server.url}/v1/models`, { headers: { origin, authorization: `Bearer ${apiKey}` } });
    expect(models.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('the management API and the console stay same-origin', async () => {
    const status = await fetch(`${server.url}/api/status`, { headers: { origin } });
    expect(status.status).toBe(200);
    expect(status.headers.get('access-control-allow-origin')).toBeNull();
    const options = await fetch(`${server.url}/api/user/self`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET' },
    });
    expect(options.headers.get('access-control-allow-origin')).toBeNull();
    expect(options.headers.get('access-control-allow-methods')).toBeNull();
    // A path that only starts like a relay family is not one.
    const lookalike = await fetch(`${server.url}/v1x/chat`, { method: 'OPTIONS', headers: { origin } });
    expect(lookalike.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("answers browsers on a key's own lookups (/api/usage/token, /api/log/token), as new-api does", async () => {
    for (const path of ['/api/usage/token', '/api/usage/token/', '/api/log/token?p=1']) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    const usage = await fetch(`${server.url}/api/usage/token`, { headers: { origin, authorization: `Bearer ${apiKey}` } });
    expect(usage.status).toBe(200);
    expect(usage.headers.get('access-control-allow-origin')).toBe('*');
    expect((await usage.json()).data).toMatchObject({ object: 'token_usage' });
    const logs = await fetch(`${server.url}/api/log/token`, { headers: { origin, authorization: `Bearer ${apiKey}` } });
    expect(logs.status).toBe(200);
    expect(logs.headers.get('access-control-allow-origin')).toBe('*');
    const denied = await fetch(`${server.url}/api/usage/token`, { headers: { origin, authorization: 'Bearer sk-nope' } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe('*');
    // Their neighbours stay same-origin.
    for (const path of ['/api/log/self', '/api/token/', '/api/usage/tokens', '/api/log/tokenx']) {
      const res = await fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } });
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});
