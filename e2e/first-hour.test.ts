import path from 'node:path';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../server/src/server.js';
import { startMockOpenAi, type MockOpenAi } from '../server/test/helpers/mock-openai.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { Session } from './helpers/session.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

/**
 * The first hour of a new operator, on fresh browser profiles: the console in the browser's language
 * (en-US and zh-CN), a remembered choice, setup landing signed in, an empty playground, the notice for
 * a channel's unpriced models leading to the editor, and the first call working once priced.
 */
const rootPassword = 'rootpass123';
const unpricedModel = 'first-hour-model';

let browser: Browser;
let server: RunningServer;
let baseUrl: string;
let stop: () => Promise<void>;
let mock: MockOpenAi;
const errors: string[] = [];
/** Deliberate 4xx answers log "Failed to load resource"; anything else fails. */
const unexpected = () => errors.filter((line) => !line.includes('Failed to load resource'));

/** A fresh profile in a browser language; every /api and /pg request's Accept-Language is recorded. */
async function freshPage(locale: string, width = 1366): Promise<{ page: Page; context: BrowserContext; languages: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 860 }, locale });
  const page = await context.newPage();
  const languages: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/api/') || pathname.startsWith('/pg/')) languages.push(`${pathname} ${request.headers()['accept-language']}`);
  });
  const pageErrors = collectPageErrors(page);
  context.on('close', () => errors.push(...pageErrors));
  return { page, context, languages };
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false });
const stored = (page: Page) => page.evaluate(() => localStorage.getItem('i18nextLng'));

beforeAll(async () => {
  mock = await startMockOpenAi();
  const started = await startModelGate();
  server = started.server;
  baseUrl = server.url;
  stop = started.stop;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await mock?.close();
  await stop?.();
}, 30_000);

describe('the first hour', () => {
  let en: Page;
  let enLanguages: string[];

  it('an en-US browser gets an English console; setup leaves the new root signed in on /token', async () => {
    ({ page: en, languages: enLanguages } = await freshPage('en-US'));
    await en.goto(baseUrl);
    await en.waitForURL('**/setup');
    await en.getByRole('heading', { name: 'System initialization' }).waitFor();
    expect(await en.evaluate(() => document.documentElement.lang)).toBe('en');
    await en.getByLabel('Admin username').fill('root');
    await en.getByLabel('Password', { exact: true }).fill(rootPassword);
    await en.getByLabel('Confirm password').fill(rootPassword);
    await en.getByRole('button', { name: 'Initialize system' }).click();
    await en.getByText('System initialized, redirecting...').waitFor();
    await en.waitForURL('**/token', { timeout: 15_000 });
    await en.getByRole('heading', { name: 'API tokens' }).waitFor();
    await en.getByRole('button', { name: 'Account menu' }).waitFor();
    await shot(en, 'first-hour-token-after-setup-en');
    // Nobody chose yet: nothing is stored, the browser's language is followed.
    expect(await stored(en)).toBeNull();
    expect(enLanguages.length).toBeGreaterThan(0);
    expect(enLanguages.filter((line) => !line.endsWith(' en'))).toEqual([]);
  });

  it('the labelled switch changes the language, and the choice survives a reload', async () => {
    await en.getByRole('button', { name: 'Language: English' }).click();
    await en.getByRole('menuitem', { name: '中文' }).click();
    await en.getByRole('heading', { name: 'API 令牌' }).waitFor();
    expect(await en.getByRole('button', { name: '语言：中文' }).innerText()).toContain('中文');
    await en.reload();
    await en.getByRole('heading', { name: 'API 令牌' }).waitFor();
    expect(await stored(en)).toBe('zh');
    expect(await en.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    enLanguages.length = 0;
    await en.goto(`${baseUrl}/log`);
    await en.getByRole('heading', { name: '使用日志' }).waitFor();
    expect(enLanguages.length).toBeGreaterThan(0);
    expect(enLanguages.filter((line) => !line.endsWith(' zh'))).toEqual([]);
    await en.getByRole('button', { name: '语言：中文' }).click();
    await en.getByRole('menuitem', { name: 'English' }).click();
    await en.getByRole('heading', { name: 'Usage log' }).waitFor();
    expect(await stored(en)).toBe('en');
  });

  it('a zh-CN browser gets a Chinese console on its first visit', async () => {
    const { page, context, languages } = await freshPage('zh-CN');
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel('用户名或邮箱').fill('root');
    await page.getByLabel('密码', { exact: true }).fill(rootPassword);
    await page
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await page.waitForURL('**/token');
    await page.getByRole('heading', { name: 'API 令牌' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await stored(page)).toBeNull();
    expect(languages.filter((line) => !line.endsWith(' zh'))).toEqual([]);
    await shot(page, 'first-hour-token-zh');
    await context.close();
  });

  it('the playground opens empty, with a placeholder', async () => {
    await en.goto(`${baseUrl}/playground`);
    await en.getByText(/^No messages yet\./).waitFor();
    expect(await en.locator('[data-role]').count()).toBe(0);
    await en.getByText('Temperature: upstream default').waitFor();
    expect(await en.getByLabel('Message').getAttribute('placeholder')).toBe('Type a message; Enter sends, Shift + Enter adds a line');
    await shot(en, 'first-hour-playground-en');
  });

  it('saving a channel with an unpriced model says so and links to the editor; once priced the first call works', async () => {
    await en.goto(`${baseUrl}/channel`);
    await en.getByRole('button', { name: 'Add channel' }).click();
    const drawer = en.getByRole('dialog');
    await drawer.getByLabel('Name', { exact: true }).fill('first-channel');
    await drawer.getByLabel('Key', { exact: true }).fill('mock-key');
    await drawer.getByLabel('Base URL').fill(mock.url);
    await drawer.getByLabel('Custom model names').fill(`gpt-4o-mini,${unpricedModel}`);
    await drawer.getByRole('button', { name: 'Add', exact: true }).click();
    await drawer.getByRole('button', { name: /^Submit$/ }).click();
    const notice = en.locator('.ant-modal').filter({ has: en.getByTestId('unpriced-models') });
    await notice.waitFor();
    expect(await notice.innerText()).toContain(unpricedModel);
    expect(await notice.innerText()).not.toContain('gpt-4o-mini');
    await shot(en, 'first-hour-unpriced-notice-en');
    await notice.getByRole('link', { name: 'Set their prices in "Models without a price"' }).click();
    await en.waitForURL((url) => url.pathname === '/setting' && url.searchParams.get('view') === 'unset');
    const unset = en.getByRole('tabpanel', { name: 'Models without a price' });
    const ratio = unset.getByLabel(`${unpricedModel} Model ratio`);
    await ratio.waitFor();
    await shot(en, 'first-hour-unpriced-editor-en');
    await ratio.fill('0.5');
    await unset.getByRole('button', { name: /Apply changes/ }).click();
    await unset.getByText('Every model in the channels has a price or ratio').waitFor();

    const root = new Session(() => baseUrl);
    await root.login('root', rootPassword);
    await root.call('POST', '/api/token/', { name: 'first-call', remain_quota: 0, unlimited_quota: true, expired_time: -1 });
    const tokens = await root.call<{ items: { name: string; key: string }[] }>('GET', '/api/token/?p=1&size=100');
    const key = tokens.items.find((token) => token.name === 'first-call')!.key;
    const client = new OpenAI({ apiKey: key.startsWith('sk-') ? key : `sk-${key}`, baseURL: `${baseUrl}/v1` });
    const reply = await client.chat.completions.create({ model: unpricedModel, messages: [{ role: 'user', content: 'Hello' }] });
    expect(reply.choices[0]!.message.content).toBe('Hello from the mock upstream.');
  });

  it('at 1366 and 1400 px the usage log shows its cost column and the token list its expiry', async () => {
    const root = new Session(() => baseUrl);
    await root.login('root', rootPassword);
    await root.call('POST', '/api/token/', {
      name: 'expiring',
      remain_quota: 500000,
      unlimited_quota: false,
      expired_time: Math.floor(Date.now() / 1000) + 86400,
    });
    await server.relay.usage.flush();
    for (const width of [1366, 1400]) {
      await en.setViewportSize({ width, height: 860 });
      await en.goto(`${baseUrl}/log`);
      await en.getByRole('row').filter({ hasText: 'first-call' }).first().waitFor();
      await expectColumnVisible(en, 'Cost', width);
      await shot(en, `first-hour-logs-${width}`);
      await en.goto(`${baseUrl}/token`);
      await en.getByRole('row').filter({ hasText: 'expiring' }).waitFor();
      await expectColumnVisible(en, 'Expires', width);
      await shot(en, `first-hour-tokens-${width}`);
    }
  });

  it('raised no page errors', async () => {
    await en.context().close();
    expect(unexpected()).toEqual([]);
  });
});

/**
 * The column's header is inside the viewport and inside the table's visible (scrolled) area, and no
 * fixed column covers it.
 */
async function expectColumnVisible(page: Page, title: string, width: number): Promise<void> {
  const header = page.getByRole('columnheader', { name: title, exact: true });
  const box = (await header.boundingBox())!;
  const area = (await page.locator('.ant-table-content, .ant-table-body').first().boundingBox())!;
  const fixed = await page
    .locator('th.ant-table-cell-fix-right, th.ant-table-cell-fix-end')
    .evaluateAll((cells) => cells.map((cell) => cell.getBoundingClientRect().left));
  const columns = await page
    .locator('thead th')
    .evaluateAll((cells) => cells.map((cell) => `${cell.textContent}:${Math.round(cell.getBoundingClientRect().width)}`).join(' | '));
  const where = `${columns} -- ${title} at ${width}px: header ${JSON.stringify(box)}, table ${JSON.stringify(area)}, fixed at ${JSON.stringify(fixed)}`;
  expect(box.x, where).toBeGreaterThanOrEqual(area.x - 1);
  expect(box.x + box.width, where).toBeLessThanOrEqual(Math.min(width, area.x + area.width) + 1);
  for (const left of fixed) expect(box.x + box.width, where).toBeLessThanOrEqual(left + 1);
}
