import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Debian's Chromium, headless, with the flags this closed-network machine needs. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Fails the test on any uncaught page error or console error. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/** A page in a new Chinese-locale desktop context; its page errors go to `errors` when the context closes. */
export async function newZhPage(browser: Browser, errors: string[]): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
  const page = await context.newPage();
  const pageErrors = collectPageErrors(page);
  context.on('close', () => errors.push(...pageErrors));
  return { page, context };
}

/** Signs in on the console's login form (Chinese or English) and waits for the token page it lands on. */
export async function signIn(page: Page, baseUrl: string, username: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel(/用户名或邮箱|Username or email/).fill(username);
  await page.getByLabel(/^密码$|^Password$/).fill(password);
  await page
    .locator('form')
    .getByRole('button', { name: /^(登\s*录|Sign in)$/ })
    .click();
  await page.waitForURL('**/token');
}
