import path from 'node:path';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../server/test/helpers/mock-openai.js';
import { collectPageErrors, launchBrowser, signIn } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

const rootPassword = 'rootpass123';
const bobPassword = 'bobpass1234';

let browser: Browser;
let baseUrl: string;
let mock: MockOpenAi;
let stop: () => Promise<void>;
const errors: string[] = [];

/** Deliberate error answers (a redeemed code again) log "Failed to load resource"; anything else fails. */
const unexpected = () => errors.filter((line) => !line.includes('Failed to load resource'));

async function newPage(): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({
    viewport: { width: 1366, height: 860 },
    locale: 'zh-CN',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const pageErrors = collectPageErrors(page);
  page.on('close', () => errors.push(...pageErrors));
  context.on('close', () => errors.push(...pageErrors));
  return { page, context };
}

/** Screenshots show tables and drawers from their start (a click may have scrolled them). */
async function shot(page: Page, name: string) {
  await page.evaluate(() => {
    for (const element of document.querySelectorAll('.ant-table-content, .ant-table-body, .ant-drawer-body')) {
      element.scrollLeft = 0;
      element.scrollTop = 0;
    }
  });
  await page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false });
}

/** A management call from the page's session (cookie plus New-Api-User), for setup steps the journey does not cover. */
async function api(page: Page, method: 'POST' | 'PUT', url: string, data: unknown) {
  const userId = await page.evaluate(() => JSON.parse(localStorage.getItem('user') ?? '{}').id as number);
  const response = await page.request.fetch(`${baseUrl}${url}`, { method, data, headers: { 'New-Api-User': String(userId) } });
  const body = (await response.json()) as { success: boolean; message: string; data: any };
  expect(body.success, body.message).toBe(true);
  return body.data;
}

async function toast(page: Page, text: string | RegExp) {
  await page.locator('.ant-message').getByText(text).first().waitFor();
}

beforeAll(async () => {
  const started = await startModelGate();
  baseUrl = started.server.url;
  stop = started.stop;
  mock = await startMockOpenAi();
  browser = await launchBrowser();
  const setup = await fetch(`${baseUrl}/api/setup`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: rootPassword, confirmPassword: rootPassword }),
  });
  expect(((await setup.json()) as { success: boolean }).success).toBe(true);
});

afterAll(async () => {
  await browser?.close();
  await mock?.close();
  await stop?.();
});

describe('operations journey (admin and a regular user)', () => {
  let admin: Page;
  let tokenKey = '';
  let redemptionCode = '';

  it('creates an OpenAI channel pointing at the mock through the editor and tests it', async () => {
    admin = (await newPage()).page;
    await signIn(admin, baseUrl, 'root', rootPassword);
    await api(admin, 'PUT', '/api/user/', { id: 1, username: 'root', quota: 50_000_000 });
    await admin.goto(`${baseUrl}/channel`);
    await admin.getByRole('heading', { name: '渠道管理' }).waitFor();
    await admin.getByRole('button', { name: /添加渠道/ }).click();
    const drawer = admin.getByRole('dialog');
    await drawer.getByText('Organization').waitFor();
    await drawer.getByLabel('名称', { exact: true }).fill('mock-openai');
    await drawer.getByLabel('代理地址').fill(`${mock.url}/`);
    await drawer.getByLabel('密钥', { exact: true }).fill('sk-mock-upstream');
    await drawer.getByLabel('自定义模型名称').fill('gpt-4o-mini');
    await drawer.getByRole('button', { name: /^填\s*入$/ }).click();
    await drawer.getByLabel('渠道标签').fill('e2e');
    await shot(admin, 'channel-editor-zh-light');
    await drawer.getByRole('button', { name: /提\s*交/ }).click();
    await toast(admin, '渠道创建成功！');
    const row = admin.getByRole('row').filter({ hasText: 'mock-openai' });
    await row.waitFor();
    await expect(row.getByTestId('response-time').textContent()).resolves.toBe('未测试');
    await row.getByRole('button', { name: /^测\s*试$/ }).click();
    await toast(admin, /渠道 mock-openai 测试成功，耗时 [\d.]+ 秒。/);
    await expect.poll(async () => row.getByTestId('response-time').textContent(), { timeout: 10_000 }).toMatch(/^[\d.]+ 秒$/);
    expect(mock.requestsFor('sk-mock-upstream').length).toBeGreaterThan(0);
    await shot(admin, 'channels-zh-light');
    await admin.getByRole('switch', { name: '开启标签聚合模式' }).click();
    const tagRow = admin.getByRole('row').filter({ hasText: '(1)' });
    await tagRow.waitFor();
    await tagRow.locator('.ant-table-row-expand-icon').click();
    await admin.getByRole('row').filter({ hasText: 'mock-openai' }).waitFor();
    await shot(admin, 'channels-tag-mode-zh-light');
    await admin.getByRole('switch', { name: '开启标签聚合模式' }).click();
  });

  it('opens the model test dialog and shows the time per model', async () => {
    const row = admin.getByRole('row').filter({ hasText: 'mock-openai' });
    await row.getByRole('button', { name: '选择模型测试' }).hover();
    await admin.getByRole('menuitem', { name: '选择模型测试' }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByRole('button', { name: /^测\s*试$/ }).click();
    await dialog.getByText(/^[\d.]+ 秒$/).waitFor();
    await shot(admin, 'channel-test-zh-light');
    await dialog.locator('.ant-modal-close').click();
  });

  it('creates a token, copies its key, and the openai client gets an answer through ModelGate', async () => {
    await admin.goto(`${baseUrl}/token`);
    await admin.getByText('令牌仅供个人使用，请勿分享给他人或用于转售，以免造成额度损失。').waitFor();
    await admin.getByRole('button', { name: /添加令牌/ }).click();
    const drawer = admin.getByRole('dialog');
    await drawer.getByLabel('名称', { exact: true }).fill('root-e2e');
    await drawer.getByRole('button', { name: '$10', exact: true }).click();
    await shot(admin, 'token-editor-zh-light');
    await drawer.getByRole('button', { name: /提\s*交/ }).click();
    await toast(admin, '令牌创建成功，请在列表页面点击复制获取令牌！');
    const row = admin.getByRole('row').filter({ hasText: 'root-e2e' });
    await row.getByRole('button', { name: /^复\s*制$/ }).click();
    await toast(admin, /^已复制：sk-/);
    tokenKey = await admin.evaluate(() => navigator.clipboard.readText());
    expect(tokenKey).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    await shot(admin, 'tokens-zh-light');

    const client = new OpenAI({ apiKey: tokenKey, baseURL: `${baseUrl}/v1` });
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello' }] });
    expect(completion.choices[0]?.message.content).toBe('Hello from the mock upstream.');
  });

  it('creates a redemption code in the console and shows it', async () => {
    await admin.goto(`${baseUrl}/redemption`);
    await admin.getByRole('heading', { name: '兑换码管理' }).waitFor();
    await admin.getByRole('button', { name: /添加兑换码/ }).click();
    const drawer = admin.getByRole('dialog');
    await expect(drawer.getByLabel('额度').inputValue()).resolves.toBe('100000');
    await shot(admin, 'redemption-editor-zh-light');
    await drawer.getByRole('button', { name: /提\s*交/ }).click();
    await toast(admin, '兑换码创建成功');
    const created = admin.getByRole('dialog', { name: /已创建 1 个兑换码/ });
    redemptionCode = await created.getByLabel('兑换码').inputValue();
    expect(redemptionCode).toMatch(/^\S{16,}$/);
    await admin.waitForTimeout(500); // let the dialog finish its opening animation
    await shot(admin, 'redemption-created-zh-light');
    await created
      .locator('.ant-modal-footer')
      .getByRole('button', { name: /关\s*闭/ })
      .click();
    await admin.getByRole('row').filter({ hasText: '$0.20' }).first().waitFor();
    await shot(admin, 'redemptions-zh-light');
  });

  it('a regular user redeems the code once, and sees only their own tokens', async () => {
    await api(admin, 'POST', '/api/user/', { username: 'bob', password: bobPassword, display_name: 'Bob' });
    const { page: bob } = await newPage();
    await signIn(bob, baseUrl, 'bob', bobPassword);
    await bob.getByRole('heading', { name: 'API 令牌' }).waitFor();
    await bob.locator('.ant-table-placeholder').first().waitFor();
    expect(await bob.getByText('root-e2e').count()).toBe(0);
    await bob.getByRole('button', { name: /添加令牌/ }).click();
    await bob.getByRole('dialog').getByLabel('名称', { exact: true }).fill('bob-key');
    await bob
      .getByRole('dialog')
      .getByRole('button', { name: /提\s*交/ })
      .click();
    await bob.getByRole('row').filter({ hasText: 'bob-key' }).waitFor();
    expect(await bob.getByText('root-e2e').count()).toBe(0);
    await shot(bob, 'tokens-user-zh-light');

    await bob.goto(`${baseUrl}/topup`);
    const balance = bob.getByTestId('wallet-balance');
    // Anchored at the end only: after a redemption antd's loading icon (aria-label "loading") can
    // linger in the button while its leave motion waits for a frame headless Chromium never paints.
    const redeemButton = bob.getByRole('button', { name: /兑\s*换$/ });
    await expect.poll(() => balance.textContent()).toContain('$0.00');
    await redeemButton.click();
    await toast(bob, '请输入兑换码！');
    await bob.getByLabel('兑换码').fill(redemptionCode);
    await redeemButton.click();
    await toast(bob, '兑换成功！');
    await expect.poll(() => balance.textContent()).toContain('$0.20');
    await shot(bob, 'wallet-redeemed-zh-light');
    await bob.getByLabel('兑换码').fill(redemptionCode);
    await redeemButton.click();
    await toast(bob, '该兑换码已被使用');
    await bob.waitForTimeout(300);
    expect(await balance.textContent()).toContain('$0.20');
    await bob.getByRole('button', { name: /支付宝/ }).click();
    await toast(bob, '管理员未开启在线充值！');
    await shot(bob, 'wallet-zh-light');
    await bob.close();
  });

  it("the root finds the journey's changes in the audit log, verifies the chain and exports it", async () => {
    await admin.goto(`${baseUrl}/audit`);
    await admin.getByRole('heading', { name: '审计日志' }).waitFor();
    await admin.getByText('POST /api/channel/').first().waitFor();
    await admin.getByText('POST /api/redemption/').first().waitFor();
    await admin.getByRole('button', { name: /校验完整性/ }).click();
    await admin.getByText(/校验通过：\d+ 条记录完整/).waitFor();
    const [download] = await Promise.all([admin.waitForEvent('download'), admin.getByRole('button', { name: /导出 CSV/ }).click()]);
    expect(download.suggestedFilename()).toBe('audit.csv');
    await shot(admin, 'audit-zh-light');
  });

  it('renders every screen in English and dark mode', async () => {
    await admin.evaluate(() => {
      localStorage.setItem('theme-mode', 'dark');
      localStorage.setItem('i18nextLng', 'en');
    });
    const screens: Array<[string, string, string | RegExp]> = [
      ['/channel', 'channels-en-dark', 'Channels'],
      ['/token', 'tokens-en-dark', 'API tokens'],
      ['/redemption', 'redemptions-en-dark', 'Redemption codes'],
      ['/topup', 'wallet-en-dark', 'Wallet'],
      ['/audit', 'audit-en-dark', 'Audit log'],
    ];
    for (const [route, name, heading] of screens) {
      await admin.goto(`${baseUrl}${route}`);
      await admin.getByRole('heading', { name: heading }).waitFor();
      await admin.waitForTimeout(300);
      await shot(admin, name);
    }
    await admin.goto(`${baseUrl}/channel/add`);
    await admin.getByRole('dialog').getByText('Organization').waitFor();
    await shot(admin, 'channel-editor-en-dark');
    await admin.goto(`${baseUrl}/token`);
    await admin.getByRole('button', { name: /Add token/ }).click();
    await admin.getByRole('dialog').getByLabel('Name', { exact: true }).waitFor();
    await shot(admin, 'token-editor-en-dark');
    await admin.evaluate(() => {
      localStorage.setItem('theme-mode', 'light');
      localStorage.setItem('i18nextLng', 'zh');
    });
    await admin.close();
    expect(unexpected()).toEqual([]);
  });
});
