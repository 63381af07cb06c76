import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * URLs Fastify refuses before routing (a malformed escape, a path parameter past maxParamLength):
 * answered in the caller's shape and language, without repeating the path back.
 */
describe('URLs the router refuses', () => {
  let server: TestServer;
  const long = 'm'.repeat(600);

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });

  it('answers the management envelope under /api', async () => {
    const badEscape = await get('/api/user/%zz');
    expect(badEscape.status).toBe(400);
    expect(badEscape.headers.get('x-request-id')).toBeTruthy();
    expect(await badEscape.json()).toEqual({ success: false, message: 'The request URL is not valid', data: null });

    const tooLong = await get(`/api/channel/${long}`, { 'accept-language': 'zh-CN' });
    expect(tooLong.status).toBe(414);
    expect(await tooLong.json()).toEqual({ success: false, message: '请求地址过长', data: null });
  });

  it('answers OpenAI-shaped errors on relay paths', async () => {
    const tooLong = await get(`/v1/models/${long}`, { authorization: 'Bearer sk-x' });
    expect(tooLong.status).toBe(414);
    const text = await tooLong.text();
    expect(text).not.toContain(long);
    expect(JSON.parse(text)).toEqual({
      error: { message: 'The request URL is too long', type: 'invalid_request_error', param: null, code: 'uri_too_long' },
    });

    const badEscape = await get('/v1beta/models/%zz:generateContent');
    expect(badEscape.status).toBe(400);
    expect((await badEscape.json()).error).toMatchObject({ code: 'invalid_url', type: 'invalid_request_error' });
  });

  it('keeps serving the same connection afterwards', async () => {
    expect((await get('/api/user/%zz')).status).toBe(400);
    const status = await get('/api/status');
    expect(status.status).toBe(200);
    expect((await status.json()).success).toBe(true);
  });
});
