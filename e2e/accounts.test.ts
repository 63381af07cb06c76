import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

const rootPassword = 'rootpass123';
const alicePassword = 'alicepass123';

let browser: Browser;
let baseUrl: string;
let stop: () => Promise<void>;
const errors: string[] = [];

/** Deliberate 4xx answers (wrong password, expired session) log "Failed to load resource"; anything else fails. */
const unexpected = () => errors.filter((line) => !line.includes('Failed to load resource'));

async function newPage(context?: BrowserContext): Promise<Page> {
  const ctx = context ?? (await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' }));
  const page = await ctx.newPage();
  errors.push(...[]);
  const pageErrors = collectPageErrors(page);
  page.on('close', () => errors.push(...pageErrors));
  return page;
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false });

async function signIn(page: Page, username: string, password: string) {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel(/用户名或邮箱|Username or email/).fill(username);
  await page.getByLabel(/^密码$|^Password$/).fill(password);
  await page
    .locator('form')
    .getByRole('button', { name: /^(登\s*录|Sign in)$/ })
    .click();
}

beforeAll(async () => {
  const started = await startModelGate();
  baseUrl = started.server.url;
  stop = started.stop;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
});

describe('accounts journey', () => {
  let admin: Page;

  it('fresh start redirects to /setup, creates root and lands signed in on /token', async () => {
    admin = await newPage();
    await admin.goto(baseUrl);
    await admin.waitForURL('**/setup');
    await admin.getByLabel('管理员用户名').fill('root');
    await admin.getByLabel('密码', { exact: true }).fill(rootPassword);
    await admin.getByLabel('确认密码').fill(rootPassword);
    await shot(admin, 'setup-zh-light');
    await admin.getByRole('button', { name: '初始化系统' }).click();
    await admin.getByText('系统初始化成功，正在跳转...').waitFor();
    await admin.waitForURL('**/token', { timeout: 15_000 });
    await admin.getByRole('heading', { name: 'API 令牌' }).waitFor();
    await admin.goto(baseUrl);
    await admin.getByRole('button', { name: '账户菜单' }).waitFor();
    await shot(admin, 'home-zh-light');
  });

  it('manages a user: add, search, disable/enable, promote/demote', async () => {
    await admin.goto(`${baseUrl}/user`);
    await admin.getByRole('button', { name: '添加用户' }).click();
    const drawer = admin.getByRole('dialog');
    await drawer.getByLabel('用户名').fill('alice');
    await drawer.getByLabel('显示名称').fill('Alice');
    await drawer.getByLabel('密码').fill(alicePassword);
    await drawer.getByRole('button', { name: /提\s*交/ }).click();
    await admin.getByText('用户账户创建成功！').waitFor();
    await admin.getByLabel('关键字').fill('alice');
    await admin.getByRole('button', { name: /查\s*询/ }).click();
    const row = admin.getByRole('row').filter({ hasText: 'alice' });
    await row.waitFor();
    // The list showing root and alice answers before the search does; wait for the filtered one.
    await expect.poll(() => admin.getByRole('row').count()).toBe(2);

    const act = async (action: RegExp, expected: string) => {
      await row.getByRole('button', { name: action }).click();
      await admin
        .locator('.ant-popconfirm')
        .getByRole('button', { name: /确\s*定/ })
        .click();
      await row.getByText(expected, { exact: true }).waitFor();
      await admin.locator('.ant-popconfirm').waitFor({ state: 'hidden' });
    };
    await act(/^禁\s*用$/, '已封禁');
    await act(/^启\s*用$/, '已激活');
    await act(/^提\s*升$/, '管理员');
    await shot(admin, 'users-zh-light');
    await act(/^降\s*级$/, '普通用户');
  });

  it('keeps English and the dark theme across a reload', async () => {
    await admin.getByRole('button', { name: '语言' }).hover();
    await admin.getByText('English', { exact: true }).click();
    await admin.getByRole('button', { name: 'Switch to dark mode' }).click();
    await admin.reload();
    await admin.getByRole('heading', { name: 'Users' }).waitFor();
    expect(await admin.evaluate(() => [localStorage.getItem('theme-mode'), localStorage.getItem('i18nextLng')])).toEqual(['dark', 'en']);
    await shot(admin, 'users-en-dark');
    await admin.goto(`${baseUrl}/setting?tab=system&section=login`);
    await admin.getByText('Login and registration', { exact: true }).first().waitFor();
    await shot(admin, 'settings-en-dark');
    await admin.goto(`${baseUrl}/personal`);
    await admin.getByText('Invite rewards').waitFor();
    await shot(admin, 'personal-en-dark');
  });

  it('signs out; a protected page then sends to /login', async () => {
    await admin.getByRole('button', { name: 'Account menu' }).hover();
    await admin.getByText('Sign out', { exact: true }).click();
    await admin.waitForURL('**/login');
    await admin.goto(`${baseUrl}/personal`);
    await admin.waitForURL('**/login');
    await shot(admin, 'login-en-dark');
    await admin.close();
  });

  it('a regular user cannot reach /user or /setting', async () => {
    const page = await newPage();
    await signIn(page, 'alice', alicePassword);
    await page.waitForURL('**/token');
    await page.goto(`${baseUrl}/user`);
    await page.getByText('无权访问此页面，仅管理员可用').waitFor();
    await page.goto(`${baseUrl}/setting`);
    await page.getByText('无权访问此页面，仅管理员可用').waitFor();
    await shot(page, 'forbidden-zh-light');
    await page.close();
  });

  it('a wrong password shows the server message', async () => {
    const page = await newPage();
    await signIn(page, 'root', 'wrong-password');
    await page.getByText(/用户名或密码错误/).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    await shot(page, 'login-zh-light');
    await page.close();
  });

  it('register shows the validation messages', async () => {
    const page = await newPage(await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'zh-CN' }));
    await page.goto(`${baseUrl}/register`);
    await page
      .getByRole('button', { name: /^注\s*册$/ })
      .last()
      .click();
    await page.getByText('请输入用户名').first().waitFor();
    await page.getByLabel('用户名').fill('bob');
    await page.getByLabel('密码', { exact: true }).fill('short');
    await page.getByLabel('确认密码').fill('different1');
    await page
      .getByRole('button', { name: /^注\s*册$/ })
      .last()
      .click();
    await page.getByText('密码长度不得小于 8 位！').waitFor();
    await page.getByText('两次输入的密码不一致').waitFor();
    await shot(page, 'register-zh-mobile');
    await page.close();
  });

  it('raised no page errors', () => {
    expect(unexpected()).toEqual([]);
  });
});
