import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../server/src/server.js';
import { startMjUpstream, type MjUpstream } from '../server/test/helpers/mj-upstream.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { Session } from './helpers/session.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

const rootPassword = 'rootpass123';
const alicePassword = 'alicepass123';

let browser: Browser;
let server: RunningServer;
let baseUrl: string;
let stop: () => Promise<void>;
let mj: MjUpstream;

const root = new Session(() => baseUrl);
const alice = new Session(() => baseUrl);
let taskId = '';

beforeAll(async () => {
  mj = await startMjUpstream('mj-secret');
  const started = await startModelGate();
  server = started.server;
  baseUrl = server.url;
  stop = started.stop;
  browser = await launchBrowser();
  // The journey drives the polls itself.
  await server.relay.tasks.stop();
  await root.call('POST', '/api/setup', { username: 'root', password: rootPassword, confirmPassword: rootPassword });
  await root.login('root', rootPassword);
  for (const [key, value] of [
    ['DrawingEnabled', 'true'],
    ['ServerAddress', baseUrl],
    ['ModelPrice', JSON.stringify({ mj_imagine: 0.1, mj_upscale: 0.05 })],
  ]) {
    await root.call('PUT', '/api/option/', { key, value });
  }
  await root.call('POST', '/api/channel/', {
    name: 'mj-plus',
    type: 5,
    key: 'mj-secret',
    base_url: mj.url,
    models: 'mj_imagine,mj_upscale',
    group: 'default',
  });
  await root.call('POST', '/api/user/', { username: 'alice', password: alicePassword, display_name: 'Alice' });
  const users = await root.call<{ items: { id: number; username: string }[] }>('GET', '/api/user/?p=1&page_size=10');
  const aliceId = users.items.find((user) => user.username === 'alice')!.id;
  await root.call('PUT', '/api/user/', { id: aliceId, username: 'alice', display_name: 'Alice', quota: 5_000_000, group: 'default' });
  await alice.login('alice', alicePassword);
  await alice.call('POST', '/api/token/', { name: 'drawing', remain_quota: 0, unlimited_quota: true, expired_time: -1 });
  const tokens = await alice.call<{ items: { name: string; key: string }[] }>('GET', '/api/token/?p=1&size=100');
  const key = tokens.items.find((token) => token.name === 'drawing')!.key;

  // An imagine submitted through the Midjourney route with the user's key, then polled to SUCCESS.
  mj.nextScript([{ status: 'IN_PROGRESS', progress: '40%' }, { status: 'SUCCESS' }]);
  const submitted = await fetch(`${baseUrl}/mj/submit/imagine`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.startsWith('sk-') ? key : `sk-${key}`}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'a lighthouse made of glass' }),
  }).then((res) => res.json() as Promise<{ code: number; result: string }>);
  expect(submitted.code).toBe(1);
  taskId = submitted.result;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await mj?.close();
}, 30_000);

describe('drawing task journey', () => {
  it('a submitted imagine appears on /midjourney in progress, then as SUCCESS with its image', async () => {
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
    await page.goto(`${baseUrl}/midjourney`);
    // The drawing callback (MjNotifyEnabled) is off: the banner says so.
    await expect.poll(() => page.getByText('当前未开启 Midjourney 回调').count(), { timeout: 15_000 }).toBe(1);
    const row = page.locator('tr', { hasText: taskId });
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => row.innerText()).toContain('执行中');
    // Progress is a number: drawn as a circle.
    expect(await row.locator('.ant-progress-circle').count()).toBeGreaterThan(0);
    expect(await row.innerText()).toContain('40%');
    // Admin-only columns are not shown to a user.
    expect(await page.getByText('提交结果', { exact: true }).count()).toBe(0);

    await server.relay.tasks.pollOnce();
    await page.getByRole('button', { name: /^查\s*询$/ }).click();
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toContain('成功');
    await row.getByText('查看图片').click();
    const dialog = page.getByRole('dialog');
    const image = dialog.locator('img').first();
    await expect.poll(() => image.getAttribute('src')).toBe(`${baseUrl}/mj/image/${taskId}`);
    // The image really loads, through the gateway's proxy from the upstream.
    await expect
      .poll(() => image.evaluate((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth), {
        timeout: 15_000,
      })
      .toBe(1);
    await page.screenshot({ path: path.join(artifactsDir, 'drawing-log.png') });
    expect(errors.filter((line) => !line.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });
});
