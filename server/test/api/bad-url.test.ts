import { connect } from 'node:net';
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

/**
 * Requests Node's HTTP parser refuses before any route (a forbidden character in a header, a head past
 * the header size limit): answered in the caller's shape and language as far as the head read tells the
 * path, and the connection closed. Fastify's default answer ("Client Error") had neither shape.
 */
describe('requests the HTTP parser refuses', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  /** Sends `head` on a fresh connection; the status, headers and parsed body of the answer. */
  function raw(head: string): Promise<{ status: number; headers: string; body: unknown }> {
    const { hostname, port } = new URL(server.url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(head));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => {
        const [headers = '', body = ''] = text.split('\r\n\r\n');
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: JSON.parse(body) });
      });
    });
  }

  it('answers a header with a control character with the envelope under /api', async () => {
    const answer = await raw('GET /api/status HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.headers).toMatch(/connection: close/i);
    expect(answer.body).toEqual({ success: false, message: 'The request could not be read', data: null });
  });

  it('answers OpenAI-shaped errors in the caller language on relay paths', async () => {
    const answer = await raw('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAccept-Language: zh-CN\r\nX-Bad: \u0001\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: { message: '请求无法解析', type: 'invalid_request_error', param: null, code: 'bad_request' } });
  });

  it('answers a head past the size limit with 431', async () => {
    const big = `X-Big: ${'b'.repeat(20_000)}\r\n`;
    const relay = await raw(`POST /v1/messages HTTP/1.1\r\nHost: x\r\n${big}\r\n`);
    expect(relay.status).toBe(431);
    expect(relay.body).toMatchObject({ error: { code: 'headers_too_large', message: 'The request headers are too large' } });
    const api = await raw(`GET /api/status HTTP/1.1\r\nHost: x\r\n${big}\r\n`);
    expect(api.status).toBe(431);
    expect(api.body).toEqual({ success: false, message: 'The request headers are too large', data: null });
  });

  it('keeps serving other connections', async () => {
    await raw('GET /api/status HTTP/1.1\r\nHost: x\r\nX-Bad: \u0001\r\n\r\n');
    const status = await fetch(`${server.url}/api/status`);
    expect(status.status).toBe(200);
  });
});
