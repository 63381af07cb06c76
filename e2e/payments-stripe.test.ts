import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../server/test/helpers/api-client.js';
import { startStripeServer, type StripeServer } from '../server/test/helpers/stripe-server.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

/**
 * Card payments in Chromium against a local server speaking Stripe's Checkout API: from the wallet
 * to Stripe's (local) checkout page, Pay, the signed webhook, back to the wallet with the balance
 * raised and the record paid; then a subscription bought the same way and its renewal cancelled.
 */
let browser: Browser;
let baseUrl: string;
let stop: () => Promise<void>;
let stripe: StripeServer;
let page: Page;
const errors: string[] = [];

const shot = (name: string) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false });

beforeAll(async () => {
  stripe = await startStripeServer();
  const started = await startModelGate({ STRIPE_API_BASE_URL: stripe.url });
  baseUrl = started.server.url;
  stop = started.stop;
  stripe.webhookUrl = `${baseUrl}/api/stripe/webhook`;
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
    ['ServerAddress', baseUrl],
    ['StripeApiSecret', stripe.secretKey],
    ['StripeWebhookSecret', stripe.webhookSecret],
    ['StripeUnitPrice', '8'],
    ['StripeMinTopUp', '2'],
  ]) {
    const res = await root.put('/api/option/', { key, value });
    expect(res.status, `${key}: ${res.text}`).toBe(200);
  }
  expect((await root.post('/api/user/', { username: 'alice', password: 'alicepass123', display_name: 'Alice' })).status).toBe(200);
  const plan = await root.post('/api/subscription/admin/plan', {
    name: 'Pro',
    description: 'GPT-4o every month',
    price: 20,
    period_unit: 'month',
    period_count: 1,
    quota: 5_000_000,
    models: ['gpt-4o'],
  });
  expect(plan.status, plan.text).toBe(200);
  browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
  page = await context.newPage();
  const pageErrors = collectPageErrors(page);
  page.on('close', () => errors.push(...pageErrors));
});

afterAll(async () => {
  await browser?.close();
  await stop?.();
  await stripe?.close();
});

describe('card payments journey', () => {
  it('tops up by card from the wallet through the checkout page', async () => {
    await page.goto(`${baseUrl}/login`);
    await page.getByLabel(/用户名或邮箱/).fill('alice');
    await page.getByLabel(/^密码$/).fill('alicepass123');
    await page
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await page.waitForURL('**/token');
    await page.goto(`${baseUrl}/topup`);
    await page.getByText('$0.00').first().waitFor();
    // Only the configured method is offered: no Epay buttons, the card.
    expect(await page.getByRole('button', { name: /支付宝/ }).count()).toBe(0);
    const amount = page.getByLabel('银行卡充值数量');
    await amount.fill('5');
    await page.getByText('实付金额：40.00 USD').waitFor();
    await shot('wallet-card-zh');
    await page.getByRole('button', { name: /银行卡支付/ }).click();
    await page.waitForURL((url) => url.origin === stripe.url);
    await page.getByText('40.00 USD').waitFor();
    await page.screenshot({ path: path.join(artifactsDir, 'stripe-local-checkout.png') });
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${baseUrl}/topup?pay=success`);
    await page.getByText('已收到付款，支付确认后余额即会增加。').waitFor();
    await page.getByTestId('wallet-balance').getByText('$5.00').waitFor();
    const record = page
      .getByRole('row')
      .filter({ hasText: /STRIPE\d+NO/ })
      .first();
    await record.getByText('已支付').waitFor();
    await record.getByText('Stripe', { exact: true }).waitFor();
    await shot('wallet-card-paid-zh');
  });

  it('subscribes to a plan by card, sees the allowance, and cancels the renewal', async () => {
    await page.goto(`${baseUrl}/subscription`);
    await page.getByText('暂无订阅').waitFor();
    const plan = page.getByTestId(/^plan-/).filter({ hasText: 'Pro' });
    await plan.getByText('20.00 USD / 月').waitFor();
    await plan.getByRole('button', { name: /银行卡订阅/ }).click();
    await page.waitForURL((url) => url.origin === stripe.url);
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(`${baseUrl}/subscription?pay=success`);
    const current = page.getByTestId(/^subscription-/).first();
    await current.getByText('剩余 $10.00 / $10.00').waitFor();
    await current.getByText('自动续费').waitFor();
    await shot('subscription-active-zh');
    await current.getByRole('button', { name: /取消续费/ }).click();
    await page.getByRole('button', { name: /确\s*定/ }).click();
    await current.getByText('已取消').waitFor();
    const sub = [...stripe.subscriptions.values()][0]!;
    expect(sub.cancel_at_period_end).toBe(true);
    await shot('subscription-cancelled-zh');
  });

  it("shows an admin the user's subscription in the user editor, to grant another plan and end it there", async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
    const admin = await context.newPage();
    const adminErrors = collectPageErrors(admin);
    await admin.goto(`${baseUrl}/login`);
    await admin.getByLabel(/用户名或邮箱/).fill('root');
    await admin.getByLabel(/^密码$/).fill('rootpass123');
    await admin
      .locator('form')
      .getByRole('button', { name: /^登\s*录$/ })
      .click();
    await admin.waitForURL((url) => !url.pathname.startsWith('/login'));
    await admin.goto(`${baseUrl}/user`);
    await admin
      .getByRole('row')
      .filter({ hasText: 'alice' })
      .getByRole('button', { name: /编\s*辑/ })
      .click();
    const panel = admin.getByTestId('user-subscriptions');
    // The plan alice bought (renewal cancelled): what is left, the period end.
    const bought = panel
      .getByTestId(/^user-subscription-/)
      .filter({ hasText: 'Pro' })
      .first();
    await bought.getByText('剩余 $10.00 / $10.00').waitFor();
    await bought.getByText('已取消').waitFor();
    await bought.getByText('本周期结束').waitFor();
    const boughtId = await bought.getAttribute('data-testid');
    await admin.getByRole('dialog').getByText('订阅').first().scrollIntoViewIfNeeded();
    await admin.screenshot({ path: path.join(artifactsDir, 'user-editor-subscriptions-zh.png') });

    await panel.getByLabel('套餐').click();
    await admin.locator('.ant-select-item-option-content', { hasText: 'Pro' }).click();
    await panel.getByLabel('周期数').fill('2');
    await panel.getByRole('button', { name: /授\s*予/ }).click();
    await admin.getByText('订阅已授予').first().waitFor();
    await panel
      .getByTestId(/^user-subscription-/)
      .nth(1)
      .waitFor();
    const grantedCount = await panel.getByTestId(/^user-subscription-/).count();
    expect(grantedCount).toBe(2);

    // End the granted one now: it shows as ended, and stops funding.
    const grantedId = await panel
      .getByTestId(/^user-subscription-/)
      .filter({ hasText: '到期结束' })
      .first()
      .getAttribute('data-testid');
    const granted = panel.getByTestId(grantedId!);
    await granted.getByRole('button', { name: /立即终止/ }).click();
    await admin.getByRole('button', { name: /确\s*定/ }).click();
    await admin.getByText('订阅已终止').first().waitFor();
    await granted.getByText('已结束').waitFor();
    // Alice's own subscription is untouched.
    await panel.getByTestId(boughtId!).getByText('已取消').waitFor();
    await admin.screenshot({ path: path.join(artifactsDir, 'user-editor-subscription-ended-zh.png') });
    expect(adminErrors.filter((line) => !line.includes('Failed to load resource'))).toEqual([]);
    await context.close();
  });

  it('had no page errors', () => {
    expect(errors.filter((line) => !line.includes('Failed to load resource'))).toEqual([]);
  });
});
