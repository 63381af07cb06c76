import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../server/test/helpers/api-client.js';
import { codeIn, resetLinkIn, startSmtpSink, type SmtpSink } from '../server/test/helpers/smtp-sink.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

/**
 * Mail journeys in Chromium against a real SMTP server (smtp-server): register with the code read
 * from the received mail, then reset the password through the mailed link and sign in with the
 * new password.
 */
let browser: Browser;
let baseUrl: string;
let stop: () => Promise<void>;
let sink: SmtpSink;
const errors: string[] = [];

/** Deliberate 4xx answers log "Failed to load resource". */
const unexpected = () => errors.filter((line) => !line.includes('Failed to load resource'));
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false });

async function newPage(): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: 1366, height: 860 },
    locale: 'zh-CN',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const page = await context.newPage();
  const pageErrors = collectPageErrors(page);
  page.on('close', () => errors.push(...pageErrors));
  return page;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  const started = await startModelGate();
  baseUrl = started.server.url;
  stop = started.stop;
  const root = new ApiClient(baseUrl);
  const setup = await root.post('/api/setup', {
    username: 'root',
    password: 'rootpass123',
    confirmPassword: 'rootpass123',
    SelfUseModeEnabled: false,
    DemoSiteEnabled: false,
  });
  expect(setup.status, setup.text).toBe(200);
  root.userId = (await root.post('/api/user/login', { username: 'root', password: 'rootpass123' })).body.data.id;
  for (const [key, value] of [
    ['SMTPServer', '127.0.0.1'],
    ['SMTPPort', String(sink.port)],
    ['SMTPFrom', 'gate@example.com'],
    ['ServerAddress', baseUrl],
    ['EmailVerificationEnabled', 'true'],
  ] as const) {
    const res = await root.put('/api/option/', { key, value });
    expect(res.status, `${key}: ${res.text}`).toBe(200);
  }
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await sink?.close();
});

describe('mail journeys in the browser', () => {
  it('registers with the code from the verification mail', async () => {
    const page = await newPage();
    await page.goto(`${baseUrl}/register`);
    await page.getByLabel(/^用户名$/).fill('mia');
    await page.getByLabel(/^密码$/).fill('miapass123');
    await page.getByLabel(/^确认密码$/).fill('miapass123');
    await page.getByLabel(/^邮箱$/).fill('mia@example.com');
    await page.getByRole('button', { name: '获取验证码' }).click();
    const mail = await sink.nextMail('mia@example.com');
    // The button counts down for 30 s after a request.
    await expect.poll(() => page.getByRole('button', { name: /重新发送/ }).count()).toBe(1);
    await page.getByLabel(/^验证码$/).fill(codeIn(mail));
    await shot(page, 'mail-register-with-code');
    await page
      .locator('form')
      .getByRole('button', { name: /^注\s*册$/ })
      .click();
    await page.waitForURL('**/login', { timeout: 20_000 });
    await page.getByLabel(/用户名或邮箱/).fill('mia');
    await page.getByLabel(/^密码$/).fill('miapass123');
    await page
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await page.waitForURL('**/token');
    await page.context().close();
  });

  it('resets the password through the mailed link and signs in with the new one', async () => {
    const page = await newPage();
    await page.goto(`${baseUrl}/reset`);
    await page.getByLabel(/^邮箱$/).fill('mia@example.com');
    await page
      .locator('form')
      .getByRole('button', { name: /^提\s*交$/ })
      .click();
    const link = resetLinkIn(await sink.nextMail('mia@example.com'));
    expect(link.origin).toBe(baseUrl);
    await page.goto(link.toString());
    await page.getByRole('button', { name: '确认重置密码' }).click();
    const shown = page.locator('.ant-typography code');
    await shown.waitFor();
    const password = (await shown.innerText()).trim();
    expect(password).toMatch(/^[A-Za-z0-9]{12}$/);
    await shot(page, 'mail-reset-confirmed');
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel(/用户名或邮箱/).fill('mia@example.com');
    await page.getByLabel(/^密码$/).fill(password);
    await page
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await page.waitForURL('**/token');
    await page.context().close();
  });

  it('had no unexpected page errors', () => {
    expect(unexpected()).toEqual([]);
  });
});
