import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/lib/session.js';
import { zhipuTokenCache } from '../../src/relay/providers/zhipu/jwt.js';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { readFixture } from '../providers/helpers/fixture-upstream.js';

interface Received {
  url: string;
  authorization: string;
  json: any;
}

/**
 * A local Zhipu v3 + MiniMax upstream that checks credentials as the providers do: a JWT signed with
 * the secret of `zid` (Zhipu), the Bearer key `mm-good` (MiniMax). Failures come back on HTTP 200,
 * in the provider's error shape.
 */
async function startProviderUpstream() {
  const received: Received[] = [];
  const isValidJwt = (token: string) => {
    const [header, claims, signature] = token.split('.');
    if (!header || !claims || !signature) return false;
    return (
      signature === createHmac('sha256', 'zsecret').update(`${header}.${claims}`).digest('base64url') &&
      JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')).api_key === 'zid'
    );
  };
  const answer = (req: http.IncomingMessage, authorization: string): string => {
    if (req.url?.startsWith('/api/paas/v3/model-api/')) {
      return isValidJwt(authorization) ? readFixture('zhipu-v3', 'invoke.json') : readFixture('zhipu-v3', 'invoke-auth-error.json');
    }
    if (req.url === '/v1/text/chatcompletion_v2') {
      return authorization === 'Bearer mm-good' ? readFixture('minimax', 'chat.json') : readFixture('minimax', 'chat-auth-error.json');
    }
    return '{"code":404,"msg":"not found","success":false}';
  };
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const authorization = String(req.headers.authorization ?? '');
      let json: any = null;
      try {
        json = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        json = null;
      }
      received.push({ url: req.url ?? '', authorization, json });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer(req, authorization));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    isValidJwt,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * PENDING MAIN'S REWRITE: the admin channel test still posts the OpenAI body to `api.url` with
 * `api.headers` and only looks at the HTTP status. These pass once it builds the request with
 * buildUpstreamRequest/sendUpstream and reads the answer through the adapter's converter.
 */
describe('admin channel test (GET /api/channel/test/:id) on Zhipu v3 and MiniMax channels [needs the channel-test rewrite]', () => {
  let server: TestServer;
  let upstream: Awaited<ReturnType<typeof startProviderUpstream>>;
  let admin: ApiClient;
  const channelStatus = async (id: number) =>
    (await server.ctx.storage.db.selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

  beforeAll(async () => {
    upstream = await startProviderUpstream();
    server = await startTestServer();
    zhipuTokenCache.clear();
    const adminId = await createRelayUser(server.ctx, { role: 10 });
    admin = server.client();
    admin.cookie = `session=${signSession('test-session-secret', adminId, 0)}`;
    admin.userId = adminId;
    await setOption(server.ctx, 'AutomaticDisableChannelEnabled', 'true');
  });
  afterAll(async () => {
    zhipuTokenCache.clear();
    await server.stop();
    await upstream.close();
  });

  it('Zhipu v3: a healthy key tests healthy with a signed /invoke request', async () => {
    const id = await createRelayChannel(server.ctx, { type: 16, key: 'zid.zsecret', baseURL: upstream.url, models: ['chatglm_turbo'] });
    const res = await admin.get(`/api/channel/test/${id}`);
    expect(res.body).toMatchObject({ success: true, message: '' });
    expect(typeof res.body.time).toBe('number');
    const sent = upstream.received.at(-1)!;
    expect(sent.url).toBe('/api/paas/v3/model-api/chatglm_turbo/invoke');
    expect(upstream.isValidJwt(sent.authorization)).toBe(true);
    expect(sent.json).toMatchObject({ prompt: [{ role: 'user', content: expect.any(String) }] });
  });

  it('Zhipu v3: a key the provider rejects (HTTP 200, code 1002) tests as failed and disables the channel', async () => {
    const id = await createRelayChannel(server.ctx, {
      type: 16,
      key: 'zid.wrong-secret',
      baseURL: upstream.url,
      models: ['chatglm_turbo'],
    });
    const res = await admin.get(`/api/channel/test/${id}`);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('Authorization Token非法');
    expect(await channelStatus(id)).toBe(3);
  });

  it('MiniMax: a healthy key tests healthy with a chatcompletion_v2 request', async () => {
    const id = await createRelayChannel(server.ctx, { type: 35, key: 'mm-good', baseURL: upstream.url, models: ['MiniMax-Text-01'] });
    const res = await admin.get(`/api/channel/test/${id}`);
    expect(res.body).toMatchObject({ success: true, message: '' });
    expect(upstream.received.at(-1)).toMatchObject({
      url: '/v1/text/chatcompletion_v2',
      authorization: 'Bearer mm-good',
      json: { model: 'MiniMax-Text-01', messages: [{ role: 'user' }] },
    });
  });

  it('MiniMax: a key the provider rejects (HTTP 200, base_resp 1004) tests as failed and disables the channel', async () => {
    const id = await createRelayChannel(server.ctx, { type: 35, key: 'mm-bad', baseURL: upstream.url, models: ['MiniMax-Text-01'] });
    const res = await admin.get(`/api/channel/test/${id}`);
    expect(res.body.success).toBe(false);
    expect(res.body.message).toContain('login fail');
    expect(await channelStatus(id)).toBe(3);
  });
});
