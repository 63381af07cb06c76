import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../server/test/helpers/api-client.js';
import { startOidcServer, type OidcServer } from '../server/test/helpers/oidc-server.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

/**
 * Third-party sign-in in Chromium against a real OpenID provider (oidc-provider): the login page's
 * OIDC button, the provider's own login and consent pages, back to /token signed in; then another
 * user binds an OIDC account from /personal and unbinds it.
 */
let browser: Browser;
let baseUrl: string;
let stop: () => Promise<void>;
let idp: OidcServer;
const errors: string[] = [];

/** Deliberate 4xx answers log "Failed to load resource"; the provider's pages load a web font we cannot reach. */
const unexpected = () => errors.filter((line) => !line.includes('Failed to load resource') && !line.includes('fonts.googleapis.com'));
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false });

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
  const page = await context.newPage();
  const pageErrors = collectPageErrors(page);
  page.on('close', () => errors.push(...pageErrors));
  return page;
}

/** On the provider's own pages: sign in with any login, then consent. */
async function passProvider(page: Page, login: string) {
  await page.waitForURL((url) => url.origin === idp.issuer);
  await page.getByPlaceholder('Enter any login').fill(login);
  await page.getByPlaceholder('and password').fill('any-password');
  await shot(page, 'oauth-oidc-provider-login');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

beforeAll(async () => {
  const started = await startModelGate();
  baseUrl = started.server.url;
  stop = started.stop;
  idp = await startOidcServer({
    clientId: 'modelgate-e2e',
    clientSecret: 'e2e-oidc-secret',
    redirectUris: [`${baseUrl}/oauth/oidc`],
    accounts: { olivia: { preferred_username: 'olivia', name: 'Olivia OIDC' } },
  });
  // Setup and the OIDC panel's options through the API, as root.
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
  const discovery = (await (await fetch(idp.wellKnown)).json()) as Record<string, string>;
  for (const [key, value] of [
    // Redirect sign-ins need the public address: the callback is {ServerAddress}/oauth/oidc.
    ['ServerAddress', baseUrl],
    ['oidc.well_known', idp.wellKnown],
    ['oidc.client_id', 'modelgate-e2e'],
    ['oidc.client_secret', 'e2e-oidc-secret'],
    ['oidc.authorization_endpoint', discovery.authorization_endpoint ?? ''],
    ['oidc.token_endpoint', discovery.token_endpoint ?? ''],
    ['oidc.user_info_endpoint', discovery.userinfo_endpoint ?? ''],
    ['oidc.enabled', 'true'],
  ] as const) {
    const res = await root.put('/api/option/', { key, value });
    expect(res.status, `${key}: ${res.text}`).toBe(200);
  }
  expect((await root.post('/api/user/', { username: 'bob', password: 'bobpass123' })).status).toBe(200);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await idp?.close();
});

describe('third-party sign-in journey (OIDC)', () => {
  it("signs up from the login page through the provider's login and consent pages, landing on /token", async () => {
    const page = await newPage();
    await page.goto(`${baseUrl}/login`);
    await page.getByRole('button', { name: '使用 OIDC 继续' }).click();
    await passProvider(page, 'olivia');
    await page.waitForURL('**/token', { timeout: 20_000 });
    await page.getByRole('heading', { name: 'API 令牌' }).waitFor();
    const stored = await page.evaluate(() => Object.entries(localStorage).find(([, value]) => value.includes('"username"'))?.[1] ?? '');
    expect(JSON.parse(stored)).toMatchObject({ username: 'olivia', display_name: 'Olivia OIDC', role: 1 });
    await shot(page, 'oauth-oidc-signed-in');
    await page.goto(`${baseUrl}/personal`);
    await page.getByRole('tab', { name: '账户绑定' }).click();
    await expect.poll(() => page.getByTestId('binding-oidc').innerText()).toContain('olivia');
    await page.context().close();
  });

  it('binds an OIDC account from /personal as another user, then unbinds it', async () => {
    const page = await newPage();
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel(/用户名或邮箱/).fill('bob');
    await page.getByLabel(/^密码$/).fill('bobpass123');
    await page
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await page.waitForURL('**/token');
    await page.goto(`${baseUrl}/personal`);
    await page.getByRole('tab', { name: '账户绑定' }).click();
    const row = page.getByTestId('binding-oidc');
    await expect.poll(() => row.innerText()).toContain('未绑定');
    await row.getByRole('button', { name: /^绑\s*定$/ }).click();
    await passProvider(page, 'bob-at-idp');
    await page.waitForURL('**/personal', { timeout: 20_000 });
    await page.getByText('绑定成功！').waitFor();
    await page.getByRole('tab', { name: '账户绑定' }).click();
    await expect.poll(() => page.getByTestId('binding-oidc').innerText()).toContain('bob-at-idp');
    await shot(page, 'oauth-oidc-bound');

    await page
      .getByTestId('binding-oidc')
      .getByRole('button', { name: /^解\s*绑$/ })
      .click();
    await page.getByRole('button', { name: /^确\s*定$/ }).click();
    await page.getByText('解绑成功').waitFor();
    await expect.poll(() => page.getByTestId('binding-oidc').innerText()).toContain('未绑定');
    await page.context().close();
  });

  it('had no unexpected page errors', () => {
    expect(unexpected()).toEqual([]);
  });
});
