import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newZhPage, signIn } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';
import { Session } from './helpers/session.js';

const rootPassword = 'rootpass123';
const alicePassword = 'alicepass123';

let browser: Browser;
let baseUrl: string;
let stop: () => Promise<void>;
/** A chat web app on its own origin: it shows the key and address it was opened with, and records every visit. */
let chatApp: { url: string; visits: URL[]; close: () => Promise<void> };
const errors: string[] = [];

async function startChatApp() {
  const visits: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://chat.local');
    visits.push(url);
    const text = (value: string | null) => (value ?? '').replace(/[<>&"]/g, '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Local chat</title><p id="key">${text(url.searchParams.get('key'))}</p><p id="url">${text(url.searchParams.get('url'))}</p>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    visits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  const started = await startModelGate();
  baseUrl = started.server.url;
  stop = started.stop;
  chatApp = await startChatApp();
  browser = await launchBrowser();
  const root = new Session(() => baseUrl);
  await root.call('POST', '/api/setup', { username: 'root', password: rootPassword, confirmPassword: rootPassword });
  await root.login('root', rootPassword);
  await root.call('POST', '/api/user/', { username: 'alice', password: alicePassword });
  const alice = new Session(() => baseUrl);
  await alice.login('alice', alicePassword);
  await alice.call('POST', '/api/token/', { name: 'disabled-one', remain_quota: 0, unlimited_quota: true, expired_time: -1 });
  const disabled = (await alice.call<{ items: { id: number; name: string }[] }>('GET', '/api/token/?p=1&size=100')).items[0]!;
  await alice.call('PUT', '/api/token/?status_only=true', { id: disabled.id, status: 2 });
  await alice.call('POST', '/api/token/', { name: 'chat-key', remain_quota: 0, unlimited_quota: true, expired_time: -1 });
});

afterAll(async () => {
  await browser?.close();
  await chatApp?.close();
  await stop?.();
  expect(errors.filter((line) => !line.includes('Failed to load resource'))).toEqual([]);
});

describe('chat apps (the Chats option)', () => {
  let aliceKey = '';

  it('an admin edits the chat apps in Settings → Operation → Chat apps, starting from new-api\u2019s defaults', async () => {
    const { page, context } = await newZhPage(browser, errors);
    await signIn(page, baseUrl, 'root', rootPassword);
    await page.goto(`${baseUrl}/setting?tab=operation&section=chats`);
    const editor = page.getByRole('tabpanel', { name: '可视化编辑' });
    await expect(editor.getByLabel('聊天应用 1 的名称').inputValue()).resolves.toBe('Cherry Studio');
    await expect(editor.getByLabel('聊天应用 6 的名称').inputValue()).resolves.toBe('OpenCat');
    // Drop AionUI, add the local web app and move it to the top.
    await editor.getByRole('button', { name: '删除聊天应用 2' }).click();
    await editor.getByRole('button', { name: /添加聊天应用/ }).click();
    await editor.getByLabel('聊天应用 6 的名称').fill('Local Chat');
    await editor.getByLabel('聊天应用 6 的链接').fill(`${chatApp.url}/chat?key={key}&url={address}`);
    for (let row = 6; row > 1; row -= 1) await editor.getByRole('button', { name: `上移聊天应用 ${row}` }).click();
    // A javascript: link is refused before anything is sent.
    await editor.getByRole('button', { name: /添加聊天应用/ }).click();
    await editor.getByLabel('聊天应用 7 的名称').fill('Evil');
    await editor.getByLabel('聊天应用 7 的链接').fill('javascript:alert(1)');
    await editor.getByRole('button', { name: /保存聊天设置/ }).click();
    await editor.getByText('不能使用 javascript:、data: 等会执行代码或读取本地数据的链接').waitFor();
    await editor.getByRole('button', { name: '删除聊天应用 7' }).click();
    await editor.getByRole('button', { name: /保存聊天设置/ }).click();
    await page.locator('.ant-message').getByText('保存成功').first().waitFor();
    await page.screenshot({ path: path.join(artifactsDir, 'settings-chats-zh-light.png') });

    const status = (await (await fetch(`${baseUrl}/api/status`)).json()) as { data: { chats: Record<string, string>[] } };
    expect(status.data.chats.map((entry) => Object.keys(entry)[0])).toEqual([
      'Local Chat',
      'Cherry Studio',
      'Lobe Chat Official Example',
      'AI as Workspace',
      'AMA',
      'OpenCat',
    ]);
    // The console may now frame the local app (CSP frame-src follows the option).
    const csp = (await fetch(`${baseUrl}/chat/0`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`frame-src 'self' ${chatApp.url}`);
    await context.close();
  });

  it('the user opens /chat/0: the app is framed with their first enabled key and the server address', async () => {
    const { page, context } = await newZhPage(browser, errors);
    await signIn(page, baseUrl, 'alice', alicePassword);
    const alice = new Session(() => baseUrl);
    await alice.login('alice', alicePassword);
    const tokens = (await alice.call<{ items: { name: string; key: string }[] }>('GET', '/api/token/?p=1&size=100')).items;
    aliceKey = `sk-${tokens.find((token) => token.name === 'chat-key')!.key}`;

    await page.getByRole('menuitem', { name: /聊天/ }).first().click();
    await page.getByRole('menuitem', { name: 'Local Chat' }).click();
    await page.waitForURL('**/chat/0');
    const frame = page.frameLocator('iframe[title="聊天"]');
    await expect(frame.locator('#key').textContent()).resolves.toBe(aliceKey);
    await expect(frame.locator('#url').textContent()).resolves.toBe(baseUrl);
    expect(chatApp.visits.at(-1)!.searchParams.get('url')).toBe(baseUrl);
    await page.screenshot({ path: path.join(artifactsDir, 'chat-embedded-zh-light.png') });
    await context.close();
  });

  it('/chat2link sends the browser to the app with the key', async () => {
    const { page, context } = await newZhPage(browser, errors);
    await signIn(page, baseUrl, 'alice', alicePassword);
    await page.goto(`${baseUrl}/chat2link?id=0`);
    await page.waitForURL(`${chatApp.url}/chat?**`);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('key')).toBe(aliceKey);
    expect(landed.searchParams.get('url')).toBe(baseUrl);
    await expect(page.locator('#key').textContent()).resolves.toBe(aliceKey);
    await context.close();
  });

  it('the token row\u2019s chat menu opens the app with that token\u2019s key', async () => {
    const { page, context } = await newZhPage(browser, errors);
    await signIn(page, baseUrl, 'alice', alicePassword);
    const row = page.getByRole('row').filter({ hasText: 'chat-key' });
    await row.waitFor();
    const button = row.getByRole('button', { name: /聊天/ });
    const menu = page.locator('.ant-dropdown:visible');
    // A hover menu closes when the table re-renders under the pointer, so each read opens it again.
    const openMenu = async () => {
      await button.hover();
      await menu.getByRole('menuitem', { name: 'OpenCat' }).waitFor({ timeout: 2_000 });
    };
    // Every default app with a link the console can open is listed.
    await expect
      .poll(async () => (await openMenu(), menu.getByRole('menuitem').allTextContents()), { timeout: 15_000, interval: 250 })
      .toEqual(['Local Chat', 'Cherry Studio', 'Lobe Chat Official Example', 'AI as Workspace', 'AMA', 'OpenCat']);
    await openMenu();
    const [popup] = await Promise.all([context.waitForEvent('page'), menu.getByRole('menuitem', { name: 'Local Chat' }).click()]);
    await popup.waitForLoadState();
    const opened = new URL(popup.url());
    expect(opened.origin).toBe(chatApp.url);
    expect(opened.searchParams.get('key')).toBe(aliceKey);
    await expect(popup.locator('#key').textContent()).resolves.toBe(aliceKey);
    await context.close();
  });
});
