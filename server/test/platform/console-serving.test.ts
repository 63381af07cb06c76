import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('console serving', () => {
  let server: TestServer;
  let dist: string;
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-AbC123.js'), 'console.log("app")');
    fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    server = await startTestServer({ env: { WEB_DIST_DIR: dist } });
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves hashed assets with a one-year immutable cache and other files revalidated', async () => {
    const asset = await fetch(`${server.url}/assets/index-AbC123.js`);
    expect(asset.status).toBe(200);
    expect(await asset.text()).toBe('console.log("app")');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const icon = await fetch(`${server.url}/favicon.svg`);
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers deep links with index.html (SPA fallback), never cached', async () => {
    for (const route of ['/', '/channel/edit/3', '/setting?tab=operation', '/user/reset?email=a&token=b']) {
      const res = await fetch(server.url + route);
      expect(res.status, route).toBe(200);
      expect(res.headers.get('content-type'), route).toContain('text/html');
      expect(res.headers.get('cache-control'), route).toBe('no-cache');
      expect(await res.text(), route).toContain('<div id="root">');
    }
  });

  it('keeps JSON 404s for unknown API and relay paths, and a missing asset is a 404 not the page', async () => {
    expect((await fetch(`${server.url}/api/nope`)).status).toBe(404);
    const relay = await fetch(`${server.url}/v1/nope`, { method: 'POST' });
    expect(relay.status).toBe(404);
    expect((await relay.json()).error.code).toBe('not_found');
    const post = await fetch(`${server.url}/channel`, { method: 'POST' });
    expect(post.status).toBe(404);
    const missing = await fetch(`${server.url}/assets/index-OldBuild.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).not.toContain('text/html');
  });
});
