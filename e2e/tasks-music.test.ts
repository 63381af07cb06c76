import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../server/src/server.js';
import { startSunoUpstream, type SunoUpstream } from '../server/test/helpers/suno-upstream.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { Session } from './helpers/session.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

const rootPassword = 'rootpass123';
const alicePassword = 'alicepass123';

let browser: Browser;
let server: RunningServer;
let baseUrl: string;
let stop: () => Promise<void>;
let suno: SunoUpstream;

const root = new Session(() => baseUrl);
const alice = new Session(() => baseUrl);
let taskId = '';

beforeAll(async () => {
  suno = await startSunoUpstream('suno-key');
  const started = await startModelGate();
  server = started.server;
  baseUrl = server.url;
  stop = started.stop;
  browser = await launchBrowser();
  // The journey drives the polls itself.
  await server.relay.tasks.stop();
  await root.call('POST', '/api/setup', { username: 'root', password: rootPassword, confirmPassword: rootPassword });
  await root.login('root', rootPassword);
  await root.call('PUT', '/api/option/', { key: 'TaskEnabled', value: 'true' });
  await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ suno_music: 0.1, suno_lyrics: 0.02 }) });
  await root.call('POST', '/api/channel/', {
    name: 'suno-proxy',
    type: 36,
    key: 'suno-key',
    base_url: suno.url,
    models: 'suno_music,suno_lyrics',
    group: 'default',
  });
  await root.call('POST', '/api/user/', { username: 'alice', password: alicePassword, display_name: 'Alice' });
  const users = await root.call<{ items: { id: number; username: string }[] }>('GET', '/api/user/?p=1&page_size=10');
  const aliceId = users.items.find((user) => user.username === 'alice')!.id;
  await root.call('PUT', '/api/user/', { id: aliceId, username: 'alice', display_name: 'Alice', quota: 5_000_000, group: 'default' });
  await alice.login('alice', alicePassword);
  await alice.call('POST', '/api/token/', { name: 'music', remain_quota: 0, unlimited_quota: true, expired_time: -1 });
  const tokens = await alice.call<{ items: { name: string; key: string }[] }>('GET', '/api/token/?p=1&size=100');
  const key = tokens.items.find((token) => token.name === 'music')!.key;

  // A song submitted through the Suno route with the user's key, then polled to SUCCESS.
  suno.nextScript([{ status: 'IN_PROGRESS' }, { status: 'SUCCESS' }]);
  const submitted = await fetch(`${baseUrl}/suno/submit/music`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.startsWith('sk-') ? key : `sk-${key}`}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a song about gateways', title: 'Gateway Blues' }),
  }).then((res) => res.json() as Promise<{ code: string; data: string }>);
  expect(submitted.code).toBe('success');
  taskId = submitted.data;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await suno?.close();
}, 30_000);

describe('music task journey', () => {
  it('a submitted song appears on /task in progress, then as SUCCESS with its JSON after the poll', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel(/用户名或邮箱/).fill('alice');
    await page.getByLabel(/^密码$/).fill(alicePassword);
    await page
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));

    await server.relay.tasks.pollOnce();
    await page.goto(`${baseUrl}/task`);
    const row = page.locator('tr', { hasText: taskId });
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => row.innerText()).toContain('执行中');
    expect(await page.getByText('渠道', { exact: true }).count()).toBe(0);

    await server.relay.tasks.pollOnce();
    await page.getByRole('button', { name: /^查\s*询$/ }).click();
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('成功');
    await row.getByText(taskId).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.innerText()).toContain('"audio_url"');
    await page.screenshot({ path: path.join(artifactsDir, 'task-log.png') });
    expect(errors.filter((line) => !line.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });
});
