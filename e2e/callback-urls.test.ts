import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newZhPage, signIn } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';
import { Session } from './helpers/session.js';

/**
 * Callback URLs under the SSRF protection: a user who points the quota webhook at the server's own
 * network is told why it is refused; the root allows private addresses in Settings → System →
 * Callback URLs, and the same webhook is then saved. With a domain allow list set there, a webhook on
 * another domain is refused with its reason and one on a listed domain is saved.
 */

const rootPassword = 'rootpass123';
const bobPassword = 'bobpass1234';
const privateHook = 'https://10.20.30.40/hooks/quota';

let browser: Browser;
let baseUrl: string;
let stop: () => Promise<void>;
const errors: string[] = [];

/** Bob's notification tab with the webhook filled in, saved; resolves once the answer is shown. */
async function saveWebhook(page: Page, url = privateHook) {
  await page.goto(`${baseUrl}/personal`);
  await page.getByRole('tab', { name: '通知设置' }).click();
  await page.getByLabel('Webhook 通知').check();
  await page.getByLabel('Webhook 地址').fill(url);
  await page.getByRole('button', { name: /^保\s*存$/ }).click();
}

beforeAll(async () => {
  const started = await startModelGate();
  baseUrl = started.server.url;
  stop = started.stop;
  browser = await launchBrowser();
  const root = new Session(() => baseUrl);
  await root.call('POST', '/api/setup', { username: 'root', password: rootPassword, confirmPassword: rootPassword });
  await root.login('root', rootPassword);
  await root.call('POST', '/api/user/', { username: 'bob', password: bobPassword });
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
  expect(errors.filter((line) => !line.includes('Failed to load resource'))).toEqual([]);
});

describe('callback URLs and the SSRF protection', () => {
  it('refuses a webhook on a private address with the reason, and takes it once the root allows private addresses', async () => {
    const bob = await newZhPage(browser, errors);
    await signIn(bob.page, baseUrl, 'bob', bobPassword);
    await saveWebhook(bob.page);
    await bob.page.locator('.ant-message').getByText('回调地址不能指向内网、本机或保留地址').waitFor();

    const root = await newZhPage(browser, errors);
    await signIn(root.page, baseUrl, 'root', rootPassword);
    await root.page.goto(`${baseUrl}/setting?tab=system&section=fetch`);
    const allowPrivate = root.page.getByRole('switch', { name: '允许内网与本机地址' });
    expect(await allowPrivate.getAttribute('aria-checked')).toBe('false');
    expect(await root.page.getByRole('switch', { name: '保护回调地址' }).getAttribute('aria-checked')).toBe('true');
    await allowPrivate.click();
    await root.page.getByRole('button', { name: /保存回调地址（SSRF 防护）/ }).click();
    await root.page.locator('.ant-message').getByText('保存成功').first().waitFor();
    await root.page.screenshot({ path: path.join(artifactsDir, 'settings-callback-urls-zh-light.png') });

    await saveWebhook(bob.page);
    await bob.page.locator('.ant-message').getByText('通知设置已更新').waitFor();
    const session = new Session(() => baseUrl);
    await session.login('bob', bobPassword);
    const self = await session.call<{ setting: string }>('GET', '/api/user/self');
    expect(JSON.parse(self.setting)).toMatchObject({ notify_type: 'webhook', webhook_url: privateHook });
    await bob.context.close();
    await root.context.close();
  });

  it('holds webhooks to the domain allow list the root sets', async () => {
    const root = await newZhPage(browser, errors);
    await signIn(root.page, baseUrl, 'root', rootPassword);
    await root.page.goto(`${baseUrl}/setting?tab=system&section=fetch`);
    await root.page.getByLabel('域名列表').click();
    await root.page.locator('.ant-select-item-option').getByText('白名单：只允许列表中的条目（为空则全部拒绝）').click();
    await root.page.getByLabel('域名', { exact: true }).fill('["*.hooks.example.com"]');
    await root.page.getByRole('button', { name: /保存回调地址（SSRF 防护）/ }).click();
    await root.page.locator('.ant-message').getByText('保存成功').first().waitFor();

    const bob = await newZhPage(browser, errors);
    await signIn(bob.page, baseUrl, 'bob', bobPassword);
    await saveWebhook(bob.page, 'https://hooks.example.org/quota');
    await bob.page.locator('.ant-message').getByText('回调地址的域名不在允许列表中').waitFor();
    await saveWebhook(bob.page, 'https://team.hooks.example.com/quota');
    await bob.page.locator('.ant-message').getByText('通知设置已更新').waitFor();

    const session = new Session(() => baseUrl);
    await session.login('root', rootPassword);
    const options = await session.call<Array<{ key: string; value: string }>>('GET', '/api/option/');
    const stored = Object.fromEntries(options.map((option) => [option.key, option.value]));
    expect(stored).toMatchObject({ 'fetch_setting.domain_filter_mode': 'true', 'fetch_setting.domain_list': '["*.hooks.example.com"]' });
    await bob.context.close();
    await root.context.close();
  });
});
