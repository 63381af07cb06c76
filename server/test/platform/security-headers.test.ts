import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const directivesOf = (csp: string | null) =>
  Object.fromEntries(
    (csp ?? '')
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values]),
  );

describe('security headers on the console and the management API', () => {
  let server: TestServer;
  let dist: string;
  let root: LoggedIn;

  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-AbC123.js'), 'console.log("app")');
    server = await startTestServer({ env: { WEB_DIST_DIR: dist } });
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const expectSecurityHeaders = (headers: Headers, where: string) => {
    expect(headers.get('x-frame-options'), where).toBe('SAMEORIGIN');
    expect(headers.get('x-content-type-options'), where).toBe('nosniff');
    expect(headers.get('referrer-policy'), where).toBe('strict-origin-when-cross-origin');
    const csp = directivesOf(headers.get('content-security-policy'));
    expect(csp['frame-ancestors'], where).toEqual(["'self'"]);
    expect(csp['script-src'], where).toEqual(["'self'"]);
    expect(csp['object-src'], where).toEqual(["'none'"]);
    expect(csp['style-src'], where).toContain("'unsafe-inline'");
  };

  it('sends them on the console, its assets and deep links, /api/status, guarded /api routes and /api 404s', async () => {
    for (const route of ['/', '/channel/edit/3', '/assets/index-AbC123.js', '/api/status', '/api/user/self', '/api/no-such-route']) {
      const res = await fetch(server.url + route);
      await res.arrayBuffer();
      expectSecurityHeaders(res.headers, route);
    }
    const signedIn = await root.client.get('/api/user/self');
    expect(signedIn.status).toBe(200);
    expectSecurityHeaders(signedIn.headers, 'signed-in /api/user/self');
  });

  it('keeps them off the relay (/v1 answers are JSON for API clients)', async () => {
    for (const route of ['/v1/models', '/v1/chat/completions']) {
      const res = await fetch(server.url + route, {
        method: route.endsWith('models') ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json' },
        body: route.endsWith('models') ? undefined : '{}',
      });
      await res.arrayBuffer();
      expect(res.status, route).toBe(401);
      expect(res.headers.get('content-security-policy'), route).toBeNull();
      expect(res.headers.get('x-frame-options'), route).toBeNull();
    }
  });

  it('lets the chat page frame the Chats links, following the option as it changes', async () => {
    const before = directivesOf((await fetch(`${server.url}/chat/0`)).headers.get('content-security-policy'));
    // The default Chats (new-api's) frame two web apps; the app links (cherrystudio://, …) need no frame.
    expect(before['frame-src']).toEqual(["'self'", 'https://chat-preview.lobehub.com', 'https://aiaw.app']);
    const chats = [
      { 'Next Web': 'https://chat.example.com/#/?settings={"key":"{key}","url":"{address}"}' },
      { LobeChat: 'https://lobe.example.org:8443/?key={key}', Local: 'http://127.0.0.1:3210/chat' },
      { App: 'ama://set-api-key?server={address}&key={key}' },
      { Broken: 'https://bad host/' },
    ];
    const saved = await root.client.put('/api/option/', { key: 'Chats', value: JSON.stringify(chats) });
    expect(saved.status, saved.text).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'HomePageContent', value: 'https://home.example.net/welcome' })).status).toBe(200);
    const after = directivesOf((await fetch(`${server.url}/chat/0`)).headers.get('content-security-policy'));
    expect(after['frame-src']).toEqual([
      "'self'",
      'https://chat.example.com',
      'https://lobe.example.org:8443',
      'http://127.0.0.1:3210',
      'https://home.example.net',
    ]);
    const api = directivesOf((await root.client.get('/api/status')).headers.get('content-security-policy'));
    expect(api['frame-src']).toEqual(after['frame-src']);

    for (const key of ['TurnstileSiteKey', 'TurnstileSecretKey'])
      expect((await root.client.put('/api/option/', { key, value: 'x' })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'TurnstileCheckEnabled', value: true })).status).toBe(200);
    const withTurnstile = directivesOf((await fetch(server.url)).headers.get('content-security-policy'));
    expect(withTurnstile['script-src']).toEqual(["'self'", 'https://challenges.cloudflare.com']);
    expect(withTurnstile['frame-src']).toContain('https://challenges.cloudflare.com');

    expect((await root.client.put('/api/option/', { key: 'Chats', value: '[]' })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'HomePageContent', value: '' })).status).toBe(200);
    expect((await root.client.put('/api/option/', { key: 'TurnstileCheckEnabled', value: false })).status).toBe(200);
    expect(directivesOf((await fetch(server.url)).headers.get('content-security-policy'))['frame-src']).toEqual(["'self'"]);
  });
});
