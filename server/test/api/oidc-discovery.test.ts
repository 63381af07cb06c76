import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxDiscoveryBytes } from '../../src/api/oauth/discover-oidc.js';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startOidcServer, type OidcServer } from '../helpers/oidc-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A plain http server answering each path as the test scripts it (an intranet IdP and its failure modes). */
async function startScriptedServer() {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/ok')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          issuer: 'http://idp.intranet',
          authorization_endpoint: 'http://idp.intranet/auth',
          token_endpoint: 'http://idp.intranet/token',
          userinfo_endpoint: 'http://idp.intranet/userinfo',
          jwks_uri: 'http://idp.intranet/jwks',
          private_note: 'not for the console',
        }),
      );
    if (path === '/html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
    if (path === '/array') return void res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2]');
    if (path === '/missing')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: 'http://idp' }));
    if (path === '/bad-endpoint')
      return void res
        .writeHead(200)
        .end(JSON.stringify({ authorization_endpoint: 'javascript:alert(1)', token_endpoint: 'http://idp/token' }));
    if (path === '/404') return void res.writeHead(404).end('not found');
    if (path === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
    // Too big, declared: refused before reading.
    if (path === '/big-declared')
      return void res.writeHead(200, { 'content-length': String(maxDiscoveryBytes + 1) }).end('x'.repeat(maxDiscoveryBytes + 1));
    // Too big, streamed without a length: cut once past the limit.
    if (path === '/big-streamed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 4 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 4 * 1024 * 1024) res.once('drain', pump);
        else res.end();
      };
      return void pump();
    }
    // Slow: headers at once, the body never ends.
    if (path === '/slow-body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.write('{"issuer":');
    }
    // Slow: nothing at all.
    if (path === '/slow-headers') return;
    res.writeHead(500).end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('POST /api/oauth/oidc/discovery (the console\u2019s "fetch configuration")', () => {
  let server: TestServer;
  let root: LoggedIn;
  let idp: OidcServer;
  let scripted: Awaited<ReturnType<typeof startScriptedServer>>;
  const discover = (wellKnown: unknown, client = root.client) => client.post('/api/oauth/oidc/discovery', { well_known: wellKnown });

  beforeAll(async () => {
    server = await startTestServer({ env: { OIDC_DISCOVERY_TIMEOUT: '1' } });
    root = await setupRootAndLogin(server);
    idp = await startOidcServer({ clientId: 'modelgate', clientSecret: 'secret', redirectUris: ['https://gate.example.com/oauth/oidc'] });
    scripted = await startScriptedServer();
  });
  afterAll(async () => {
    await server?.stop();
    await idp?.close();
    await scripted?.close();
  });

  it('fetches a real provider\u2019s http:// document and answers its endpoints', async () => {
    const res = await discover(idp.wellKnown);
    expect(res.status, res.text).toBe(200);
    const expected = (await (await fetch(idp.wellKnown)).json()) as Record<string, string>;
    expect(res.body.data).toEqual({
      issuer: idp.issuer,
      authorization_endpoint: expected.authorization_endpoint,
      token_endpoint: expected.token_endpoint,
      userinfo_endpoint: expected.userinfo_endpoint,
    });
  });

  it('answers only the endpoint fields (not the rest of the document), after a redirect too', async () => {
    for (const path of ['/ok', '/redirect']) {
      const res = await discover(`${scripted.url}${path}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data).toEqual({
        issuer: 'http://idp.intranet',
        authorization_endpoint: 'http://idp.intranet/auth',
        token_endpoint: 'http://idp.intranet/token',
        userinfo_endpoint: 'http://idp.intranet/userinfo',
      });
    }
  });

  it.each([
    ['a URL that is not one', 'not a url', 'well_known: Well-Known URL 必须是 http:// 或 https:// 开头的地址'],
    ['another scheme', 'file:///etc/passwd', 'well_known: Well-Known URL 必须是 http:// 或 https:// 开头的地址'],
    [
      'an ftp URL',
      'ftp://idp.example.com/.well-known/openid-configuration',
      'well_known: Well-Known URL 必须是 http:// 或 https:// 开头的地址',
    ],
    ['no URL', undefined, 'well_known: Invalid input: expected string, received undefined'],
    ['a URL too long', `https://idp.example.com/${'a'.repeat(2100)}`, 'well_known: Well-Known URL 过长'],
  ])('refuses %s with a 400 before fetching anything', async (_case, value, message) => {
    const res = await discover(value);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    if (value !== undefined) expect(res.body.message).toBe(message);
  });

  it.each([
    ['a document over the size limit (declared)', '/big-declared', 'OIDC 配置文档超过 256 KB'],
    ['a document over the size limit (streamed)', '/big-streamed', 'OIDC 配置文档超过 256 KB'],
    ['an HTML page', '/html', 'OIDC 配置文档不是合法的 JSON'],
    ['a JSON array', '/array', 'OIDC 配置文档不是合法的 JSON'],
    ['a document without endpoints', '/missing', 'OIDC 配置文档缺少 authorization_endpoint、token_endpoint，或端点不是 http(s) 地址'],
    [
      'an endpoint that is not an http(s) URL',
      '/bad-endpoint',
      'OIDC 配置文档缺少 authorization_endpoint、token_endpoint，或端点不是 http(s) 地址',
    ],
    ['an HTTP error', '/404', '获取 OIDC 配置失败：Well-Known URL 返回 HTTP 404'],
    ['a server that never answers', '/slow-headers', '获取 OIDC 配置超时（1 秒）'],
    ['a body that never ends', '/slow-body', '获取 OIDC 配置超时（1 秒）'],
  ])('refuses %s with a 400 saying why', async (_case, path, message) => {
    const started = Date.now();
    const res = await discover(`${scripted.url}${path}`);
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ success: false, message });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a closed port with the spec\u2019s message, in English too', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const res = await discover(`http://127.0.0.1:${port}/.well-known/openid-configuration`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('获取 OIDC 配置失败，请检查网络状况和 Well-Known URL 是否正确');
    root.client.language = 'en';
    const english = await discover(`${scripted.url}/slow-headers`);
    root.client.language = 'zh-CN';
    expect(english.body.message).toBe('Fetching the OIDC configuration timed out (1 s)');
  });

  it('is for the root alone: an admin gets 403, a visitor 401', async () => {
    const admin = await createUserAndLogin(server, root.client, 'oidcadmin', 10);
    expect((await discover(`${scripted.url}/ok`, admin.client)).status).toBe(403);
    expect((await discover(`${scripted.url}/ok`, server.client())).status).toBe(401);
  });
});
