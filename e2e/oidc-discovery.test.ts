import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcServer, type OidcServer } from '../server/test/helpers/oidc-server.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { startModelGate } from './helpers/server.js';

const rootPassword = 'rootpass123';

let browser: Browser;
let baseUrl: string;
let stop: () => Promise<void>;
let idp: OidcServer;

beforeAll(async () => {
  const started = await startModelGate();
  baseUrl = started.server.url;
  stop = started.stop;
  idp = await startOidcServer({ clientId: 'modelgate', clientSecret: 'secret', redirectUris: [`${baseUrl}/oauth/oidc`] });
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
  await idp?.close();
  await stop?.();
});

describe('OIDC "fetch configuration" of an http:// provider', () => {
  it('fills the endpoints under the console\u2019s strict CSP, the server fetching the document', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel(/用户名或邮箱/).fill('root');
    await page.getByLabel(/^密码$/).fill(rootPassword);
    await page
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await page.waitForURL('**/token');
    await page.goto(`${baseUrl}/setting?tab=system&section=oidc`);
    expect(idp.wellKnown.startsWith('http://')).toBe(true);
    await page.getByLabel('Well-Known URL').fill(idp.wellKnown);
    await page.getByRole('button', { name: /获取 OIDC 配置/ }).click();
    await page.locator('.ant-message').getByText('已获取 OIDC 配置').waitFor();
    const expected = (await (await fetch(idp.wellKnown)).json()) as Record<string, string>;
    await expect(page.getByLabel('Authorization Endpoint').inputValue()).resolves.toBe(expected.authorization_endpoint);
    await expect(page.getByLabel('Token Endpoint').inputValue()).resolves.toBe(expected.token_endpoint);
    await expect(page.getByLabel('UserInfo Endpoint').inputValue()).resolves.toBe(expected.userinfo_endpoint);
    // The CSP still refuses plain-http connections from the page: nothing was blocked because nothing tried.
    const csp = (await fetch(`${baseUrl}/setting`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self' https:");
    expect(errors).toEqual([]);
    await context.close();
  });
});
