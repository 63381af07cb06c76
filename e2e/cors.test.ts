import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../server/src/server.js';
import { startMockOpenAi, type MockOpenAi } from '../server/test/helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../server/test/helpers/relay-fixtures.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { startModelGate } from './helpers/server.js';

let browser: Browser;
let server: RunningServer;
let stop: () => Promise<void>;
let upstream: MockOpenAi;
let page: http.Server;
let pageUrl = '';
let apiKey = '';

/** A chat web app on another origin: it streams a completion from the gateway with fetch and shows the text. */
const appHtml = (gateway: string, key: string) => `<!doctype html><html><body><pre id="out"></pre><p id="state">waiting</p><script>
(async () => {
  const out = document.getElementById('out');
  const state = document.getElementById('state');
  try {
    const res = await fetch(${JSON.stringify(`${gateway}/v1/chat/completions`)}, {
      method: 'POST',
      headers: { authorization: 'Bearer ${key}', 'content-type': 'application/json', 'x-stainless-lang': 'js' },
      body: JSON.stringify({ model: 'gpt-browser', stream: true, messages: [{ role: 'user', content: 'hi from the browser' }] }),
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      for (const line of buffer.split('\\n').slice(0, -1)) {
        if (line.startsWith('data: {')) out.textContent += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? '';
      }
      buffer = buffer.slice(buffer.lastIndexOf('\\n') + 1);
    }
    state.textContent = 'done ' + res.status;
  } catch (error) {
    state.textContent = 'failed ' + error;
  }
})();
</script></body></html>`;

beforeAll(async () => {
  upstream = await startMockOpenAi();
  const started = await startModelGate();
  server = started.server;
  stop = started.stop;
  await setOption(server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-browser': 1 }));
  const userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
  apiKey = (await createRelayToken(server.ctx, userId, { remainQuota: 5_000_000 })).apiKey;
  await createRelayChannel(server.ctx, { type: 1, key: 'sk-upstream', baseURL: upstream.url, models: ['gpt-browser'] });
  page = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(appHtml(server.url, apiKey)));
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  // "localhost" against the gateway's 127.0.0.1: another origin (host and port differ).
  pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await upstream?.close();
  await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
}, 30_000);

describe('a web client on another origin', () => {
  it('streams a chat through the gateway with fetch (CORS preflight and answer)', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    const errors = collectPageErrors(tab);
    await tab.goto(pageUrl);
    await expect.poll(() => tab.locator('#state').innerText(), { timeout: 15_000 }).toBe('done 200');
    expect(await tab.locator('#out').innerText()).toBe('Hello from the mock upstream.');
    // The preflight reached the gateway's CORS answer, the chat the upstream.
    expect(upstream.requests.filter((request) => request.body?.model === 'gpt-browser')).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});
