import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { precompressDirectory } from '../../../web/vite-plugin-precompress.js';
import { decodeBody, rawGet } from '../helpers/raw-get.js';
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

describe('compressed console assets', () => {
  let server: TestServer;
  let dist: string;
  const script = Array.from({ length: 2000 }, (_, i) => `export const value${i} = ${JSON.stringify(i.toString(36).repeat(4))};`).join('\n');
  const styles = Array.from(
    { length: 200 },
    (_, i) => `.row-${i} { margin: ${i}px; color: #${(i * 4099).toString(16).padStart(6, '0').slice(0, 6)}; }`,
  ).join('\n');
  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title><div id="root"></div>');
    fs.writeFileSync(path.join(dist, 'assets', 'index-Zz9.js'), script);
    fs.writeFileSync(path.join(dist, 'assets', 'index-Yy8.css'), styles);
    // Already compressed formats, and files too small to gain, get no copies.
    fs.writeFileSync(path.join(dist, 'assets', 'photo-Xx7.png'), Buffer.alloc(4096, 7));
    fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // What `npm run build` does after Vite has written the files.
    await precompressDirectory(dist);
    server = await startTestServer({ env: { WEB_DIST_DIR: dist } });
  });
  afterAll(async () => {
    await server.stop();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('writes brotli and gzip copies beside the text assets only', () => {
    const written = fs.readdirSync(path.join(dist, 'assets')).sort();
    expect(written).toEqual([
      'index-Yy8.css',
      'index-Yy8.css.br',
      'index-Yy8.css.gz',
      'index-Zz9.js',
      'index-Zz9.js.br',
      'index-Zz9.js.gz',
      'photo-Xx7.png',
    ]);
    expect(fs.readdirSync(dist).filter((name) => /\.(br|gz)$/.test(name))).toEqual([]);
    expect(fs.statSync(path.join(dist, 'assets', 'index-Zz9.js.br')).size).toBeLessThan(script.length / 4);
  });

  it('answers each Accept-Encoding with the matching bytes, Vary and the immutable cache', async () => {
    const cases: Array<[string | undefined, string | undefined]> = [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br, zstd', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['identity', undefined],
      [undefined, undefined],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const response = await rawGet(`${server.url}/assets/index-Zz9.js`, acceptEncoding ? { 'accept-encoding': acceptEncoding } : {});
      const label = acceptEncoding ?? '(none)';
      expect(response.status, label).toBe(200);
      expect(response.headers['content-encoding'], label).toBe(expected);
      expect(response.headers.vary?.toLowerCase(), label).toContain('accept-encoding');
      expect(response.headers['content-type'], label).toMatch(/^(text|application)\/javascript/);
      expect(response.headers['cache-control'], label).toBe('public, max-age=31536000, immutable');
      expect(Number(response.headers['content-length']), label).toBe(response.body.length);
      expect(decodeBody(response).toString(), label).toBe(script);
    }
    const css = await rawGet(`${server.url}/assets/index-Yy8.css`, { 'accept-encoding': 'gzip' });
    expect(css.headers['content-encoding']).toBe('gzip');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(decodeBody(css).toString()).toBe(styles);
  });

  it('sends files without a copy as they are, and index.html revalidated', async () => {
    const photo = await rawGet(`${server.url}/assets/photo-Xx7.png`, { 'accept-encoding': 'br, gzip' });
    expect(photo.headers['content-encoding']).toBeUndefined();
    expect(photo.body.equals(Buffer.alloc(4096, 7))).toBe(true);
    for (const route of ['/', '/console/log']) {
      const page = await rawGet(server.url + route, { 'accept-encoding': 'br, gzip' });
      expect(page.status, route).toBe(200);
      expect(page.headers['cache-control'], route).toBe('no-cache');
      expect(decodeBody(page).toString(), route).toContain('<div id="root">');
    }
  });

  it('does not serve the compressed copies as files of their own', async () => {
    const copy = await rawGet(`${server.url}/assets/index-Zz9.js.br`);
    expect(copy.status).toBe(404);
    expect(copy.headers['content-type']).not.toContain('text/html');
  });
});
