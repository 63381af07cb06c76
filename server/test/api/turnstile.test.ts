import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootPassword, rootUsername, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A local stand-in for Cloudflare's siteverify endpoint: form-encoded in, {success, error-codes} out. */
async function startVerifyServer() {
  const received: Array<Record<string, string>> = [];
  let mode: 'normal' | 'broken' = 'normal';
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body));
      received.push(form);
      if (mode === 'broken') {
        response.writeHead(500, { 'Content-Type': 'text/html' }).end('<html>oops</html>');
        return;
      }
      const isGood = form.secret === 'turnstile-secret' && form.response === 'good-token';
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(isGood ? { success: true } : { success: false, 'error-codes': ['invalid-input-response'] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/turnstile/v0/siteverify`,
    received,
    setMode: (next: typeof mode) => (mode = next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Turnstile bot check against a local siteverify server', () => {
  let verify: Awaited<ReturnType<typeof startVerifyServer>>;
  let server: TestServer;
  let root: LoggedIn;
  beforeAll(async () => {
    verify = await startVerifyServer();
    server = await startTestServer({ env: { TURNSTILE_VERIFY_URL: verify.url } });
    root = await setupRootAndLogin(server);
    for (const [key, value] of [
      ['TurnstileSiteKey', 'site-key'],
      ['TurnstileSecretKey', 'turnstile-secret'],
      ['TurnstileCheckEnabled', 'true'],
    ]) {
      expect((await root.client.put('/api/option/', { key, value })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await server?.stop();
    await verify?.close();
  });

  const login = (turnstile?: string) =>
    server.client().post(`/api/user/login${turnstile === undefined ? '' : `?turnstile=${encodeURIComponent(turnstile)}`}`, {
      username: rootUsername,
      password: rootPassword,
    });

  it('refuses a sign-in without a token, and one the verifier rejects, with clear messages', async () => {
    const missing = await login();
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ success: false, message: 'Turnstile token 为空', data: null });
    const rejected = await login('forged-token');
    expect(rejected.status).toBe(400);
    expect(rejected.body).toEqual({ success: false, message: 'Turnstile 校验失败，请刷新重试！', data: null });
    expect(rejected.headers.get('set-cookie')).toBeNull();
  });

  it('signs in with a token the verifier accepts, sending it the secret, the token and the client address', async () => {
    verify.received.length = 0;
    const res = await login('good-token');
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toContain('session=');
    expect(verify.received).toEqual([{ secret: 'turnstile-secret', response: 'good-token', remoteip: '127.0.0.1' }]);
  });

  it('registers nobody when the token is missing or rejected', async () => {
    const body = { username: 'botty', password: 'abcdefgh1', password2: 'abcdefgh1' };
    for (const query of ['', '?turnstile=forged-token']) {
      const res = await server.client().post(`/api/user/register${query}`, body);
      expect(res.status).toBe(400);
      expect(res.body.success).toBe(false);
    }
    expect(await server.ctx.storage.db.selectFrom('users').select('id').where('username', '=', 'botty').execute()).toEqual([]);
    expect((await server.client().post('/api/user/register?turnstile=good-token', body)).status).toBe(200);
  });

  it('stays closed (400, no crash) when the verifier is broken or gone, and a huge token is refused without a call', async () => {
    verify.setMode('broken');
    try {
      const res = await login('good-token');
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Turnstile 返回了无法识别的数据');
      expect(res.headers.get('set-cookie')).toBeNull();
    } finally {
      verify.setMode('normal');
    }
    verify.received.length = 0;
    expect((await login('x'.repeat(5000))).status).toBe(400);
    expect(verify.received).toEqual([]);
  });

  it('guards the verification and password-reset mails too, before anything is sent', async () => {
    for (const path of ['/api/verification?email=bot@example.com', '/api/reset_password?email=bot@example.com']) {
      expect((await server.client().get(path)).body, path).toEqual({ success: false, message: 'Turnstile token 为空', data: null });
      expect((await server.client().get(`${path}&turnstile=forged-token`)).body.message, path).toBe('Turnstile 校验失败，请刷新重试！');
    }
  });

  it('asks for nothing when the check is off', async () => {
    expect((await root.client.put('/api/option/', { key: 'TurnstileCheckEnabled', value: 'false' })).status).toBe(200);
    expect((await login()).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'TurnstileCheckEnabled', value: 'true' })).status).toBe(200);
  });
});

describe('Turnstile verifier unreachable', () => {
  it('answers a clear 400 within the timeout', async () => {
    const server = await startTestServer({ env: { TURNSTILE_VERIFY_URL: 'http://127.0.0.1:9/siteverify' } });
    try {
      const root = await setupRootAndLogin(server);
      for (const [key, value] of [
        ['TurnstileSiteKey', 's'],
        ['TurnstileSecretKey', 't'],
        ['TurnstileCheckEnabled', 'true'],
      ])
        await root.client.put('/api/option/', { key, value });
      const res = await server.client().post('/api/user/login?turnstile=good-token', { username: rootUsername, password: rootPassword });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, message: '无法连接到 Turnstile，请稍后再试', data: null });
    } finally {
      await server.stop();
    }
  });
});
