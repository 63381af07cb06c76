import path from 'node:path';
import { generate } from 'otplib';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';
import { Session } from './helpers/session.js';

/**
 * Two-factor sign-in in Chromium: TOTP enrolment from the personal settings and sign-in with codes
 * the test computes from the secret the page shows (otplib, as an authenticator app would), and
 * passkeys through Chromium's own virtual authenticator (the DevTools WebAuthn domain), so the
 * browser's real navigator.credentials runs the ceremonies. WebAuthn needs a secure context:
 * the console is opened on http://localhost:<port>, which is also the ServerAddress (the relying party).
 */
const rootPassword = 'rootpass123';
const password = 'userpass123';

let browser: Browser;
let origin: string;
let stop: () => Promise<void>;
const errors: string[] = [];
const root = new Session(() => origin);

/** Deliberate 4xx answers (a wrong code) log "Failed to load resource"; anything else fails. */
const unexpected = () => errors.filter((line) => !line.includes('Failed to load resource'));
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`) });

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
  const page = await context.newPage();
  const pageErrors = collectPageErrors(page);
  page.on('close', () => errors.push(...pageErrors));
  return { context, page };
}

async function passwordStep(page: Page, username: string) {
  await page.goto(`${origin}/login`);
  await page.getByLabel('用户名或邮箱').fill(username);
  await page.getByLabel(/^密码$/).fill(password);
  await page
    .locator('form')
    .getByRole('button', { name: /^登\s*录$/ })
    .click();
}

/** The authenticator app: the next code the server accepts (one per 30-second step, each step once). */
const app = { secret: '', lastStep: 0 };
async function nextCode(): Promise<string> {
  for (;;) {
    const now = Math.floor(Date.now() / 30_000);
    const step = Math.max(now, app.lastStep + 1);
    if (step <= now + 1) {
      app.lastStep = step;
      return generate({ secret: app.secret, epoch: step * 30 });
    }
    await new Promise((resolve) => setTimeout(resolve, (now + 1) * 30_000 - Date.now() + 50));
  }
}

/** Chromium's virtual authenticator on this page: a platform authenticator with user verification and resident keys. */
async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

beforeAll(async () => {
  const started = await startModelGate();
  origin = started.server.url.replace('127.0.0.1', 'localhost');
  stop = started.stop;
  browser = await launchBrowser();
  await root.call('POST', '/api/setup', {
    username: 'root',
    password: rootPassword,
    confirmPassword: rootPassword,
    SelfUseModeEnabled: false,
    DemoSiteEnabled: false,
  });
  await root.login('root', rootPassword);
  await root.call('PUT', '/api/option/', { key: 'ServerAddress', value: origin });
  await root.call('PUT', '/api/option/', { key: 'passkey.enabled', value: 'true' });
  for (const username of ['tina', 'pete']) await root.call('POST', '/api/user/', { username, password, display_name: username });
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
});

describe('two-factor sign-in journeys', () => {
  it('enrols TOTP from the personal settings with the QR code and a first code, then signs in with codes', async () => {
    const { context, page } = await newPage();
    await passwordStep(page, 'tina');
    await page.waitForURL('**/token');
    await page.goto(`${origin}/personal?tab=two-factor`);
    await page.getByText('认证器应用（TOTP）').waitFor();
    await page.getByRole('button', { name: /^启\s*用$/ }).click();
    const dialog = page.getByRole('dialog', { name: '设置认证器应用' });
    await dialog.locator('canvas, svg').first().waitFor();
    app.secret = (await dialog.getByTestId('totp-secret').innerText()).trim();
    expect(app.secret).toMatch(/^[A-Z2-7]{32}$/);
    await shot(page, 'two-factor-enrol');
    // A wrong code first: refused, the dialog stays.
    await dialog.getByLabel('验证码').fill('000000');
    await dialog.getByRole('button', { name: /^启\s*用$/ }).click();
    await page.getByText('验证码或备用码错误，请重试').waitFor();
    await dialog.getByLabel('验证码').fill(await nextCode());
    // After the refused try the button may still carry the fading loading icon ("loading 启 用") for a while.
    await dialog.getByRole('button', { name: /启\s*用$/ }).click();
    const codesDialog = page.getByRole('dialog', { name: '你的备用码' });
    await codesDialog.waitFor();
    const recoveryCodes = (await codesDialog.getByTestId('recovery-codes').locator('code').allInnerTexts()).map((code) => code.trim());
    expect(recoveryCodes).toHaveLength(10);
    await codesDialog.getByRole('button', { name: '我已保存' }).click();
    await page.getByText('已启用 · 剩余备用码：10').waitFor();
    await context.close();

    // A new browser: the password alone gives no session; the second step with a code does.
    const second = await newPage();
    await passwordStep(second.page, 'tina');
    await second.page.getByText('请输入认证器应用中的 6 位验证码，或一个备用码。').waitFor();
    expect((await second.context.cookies()).some((cookie) => cookie.name === 'session')).toBe(false);
    await shot(second.page, 'two-factor-second-step');
    await second.page.getByLabel('验证码').fill(await nextCode());
    await second.page.getByRole('button', { name: /^验\s*证$/ }).click();
    await second.page.waitForURL('**/token');
    expect((await second.context.cookies()).some((cookie) => cookie.name === 'session')).toBe(true);
    await second.context.close();

    // A third browser with a recovery code.
    const third = await newPage();
    await passwordStep(third.page, 'tina');
    await third.page.getByLabel('验证码').fill(recoveryCodes[0]!);
    await third.page.getByRole('button', { name: /^验\s*证$/ }).click();
    await third.page.waitForURL('**/token');
    await third.page.goto(`${origin}/personal?tab=two-factor`);
    await third.page.getByText('已启用 · 剩余备用码：9').waitFor();
    await third.context.close();
  }, 150_000);

  it("registers a passkey with Chromium's virtual authenticator, renames it, signs in with it and uses it as the second step", async () => {
    const { context, page } = await newPage();
    const { cdp, authenticatorId } = await addVirtualAuthenticator(context, page);
    await passwordStep(page, 'pete');
    await page.waitForURL('**/token');
    await page.goto(`${origin}/personal?tab=two-factor`);
    await page.getByRole('button', { name: '添加 Passkey' }).click();
    await page.getByLabel('Passkey 名称').fill('Laptop');
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^确\s*定$/ })
      .click();
    await page.getByText('Passkey 注册成功').waitFor();
    await page.getByText('Laptop', { exact: true }).waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.rpId).toBe('localhost');
    expect(credentials[0]!.isResidentCredential).toBe(true);

    await page.getByRole('button', { name: /^重命名$/ }).click();
    await page.getByLabel('Passkey 名称').fill('Work laptop');
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^确\s*定$/ })
      .click();
    await page.getByText('Work laptop', { exact: true }).waitFor();
    await shot(page, 'two-factor-passkeys');

    // Signed out: the passkey signs in instead of the password.
    await context.clearCookies();
    await page.goto(`${origin}/login`);
    await page.getByRole('button', { name: '使用 Passkey 登录' }).click();
    await page.waitForURL('**/token');
    expect((await context.cookies()).some((cookie) => cookie.name === 'session')).toBe(true);

    // With a passkey, the password asks for the second step; the passkey passes it.
    await context.clearCookies();
    await passwordStep(page, 'pete');
    await page.getByText('请使用你的 Passkey 确认登录。').waitFor();
    await page.getByRole('button', { name: '使用 Passkey' }).click();
    await page.waitForURL('**/token');

    // Removing it: the list is empty and the password alone signs in again.
    await page.goto(`${origin}/personal?tab=two-factor`);
    await page.getByRole('button', { name: /^删\s*除$/ }).click();
    await page
      .getByRole('tooltip')
      .getByRole('button', { name: /^确\s*定$/ })
      .click();
    await page.getByText('Passkey 已删除').waitFor();
    await expect.poll(() => page.getByText('Work laptop', { exact: true }).count()).toBe(0);
    await context.clearCookies();
    await passwordStep(page, 'pete');
    await page.waitForURL('**/token');
    await context.close();
    expect(unexpected()).toEqual([]);
  }, 150_000);
});
