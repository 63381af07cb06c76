import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateQuotaData } from '../server/src/api/data/aggregate-quota-data.js';
import type { RunningServer } from '../server/src/server.js';
import { startMockOpenAi, type MockOpenAi } from '../server/test/helpers/mock-openai.js';
import { collectPageErrors, launchBrowser } from './helpers/browser.js';
import { Session } from './helpers/session.js';
import { artifactsDir, startModelGate } from './helpers/server.js';

const rootPassword = 'rootpass123';
const alicePassword = 'alicepass123';
const answer = 'Hello from the mock upstream.';

let browser: Browser;
let server: RunningServer;
let baseUrl: string;
let stop: () => Promise<void>;
let mock: MockOpenAi;
let drip: { url: string; close: () => Promise<void> };
const errors: string[] = [];
const unexpected = () => errors.filter((line) => !line.includes('Failed to load resource'));

/**
 * Sits between ModelGate and the mock upstream and releases each server-sent event 120 ms apart,
 * so the browser sees the answer arrive piece by piece.
 */
async function startDrip(target: string) {
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        if (!(reply.headers['content-type'] ?? '').includes('event-stream')) return void reply.pipe(res);
        let buffer = '';
        const events: string[] = [];
        let isEnded = false;
        let isPumping = false;
        const pump = () => {
          if (isPumping) return;
          isPumping = true;
          const next = () => {
            const event = events.shift();
            if (event !== undefined) {
              res.write(event);
              setTimeout(next, 120);
            } else if (isEnded) {
              res.end();
            } else {
              isPumping = false;
            }
          };
          next();
        };
        reply.on('data', (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          let at = buffer.indexOf('\n\n');
          while (at >= 0) {
            events.push(buffer.slice(0, at + 2));
            buffer = buffer.slice(at + 2);
            at = buffer.indexOf('\n\n');
          }
          pump();
        });
        reply.on('end', () => {
          if (buffer) events.push(buffer);
          isEnded = true;
          pump();
        });
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(artifactsDir, `${name}.png`), fullPage: false });

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, locale: 'zh-CN' });
  const page = await context.newPage();
  const pageErrors = collectPageErrors(page);
  page.on('close', () => errors.push(...pageErrors));
  return page;
}

async function signIn(
  page: Page,
  username: string,
  password: string,
  look: { language: 'zh' | 'en'; theme: 'light' | 'dark' } = { language: 'zh', theme: 'light' },
) {
  await page.goto(`${baseUrl}/login`);
  await page.evaluate(({ language, theme }) => {
    localStorage.setItem('i18nextLng', language);
    localStorage.setItem('theme-mode', theme);
  }, look);
  await page.reload();
  await page.getByLabel(/用户名或邮箱|Username or email/).fill(username);
  await page.getByLabel(/^密码$|^Password$/).fill(password);
  await page
    .locator('form')
    .getByRole('button', { name: /^(登\s*录|Sign in)$/ })
    .click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
}

const root = new Session(() => baseUrl);
const alice = new Session(() => baseUrl);
let aliceKey = '';
let rootKey = '';
let channelId = 0;

async function createToken(session: Session, name: string): Promise<string> {
  await session.call('POST', '/api/token/', { name, remain_quota: 0, unlimited_quota: true, expired_time: -1 });
  const page = await session.call<{ items: { name: string; key: string }[] }>('GET', '/api/token/?p=1&size=100');
  const key = page.items.find((token) => token.name === name)!.key;
  return key.startsWith('sk-') ? key : `sk-${key}`;
}

beforeAll(async () => {
  mock = await startMockOpenAi();
  drip = await startDrip(mock.url);
  const started = await startModelGate();
  server = started.server;
  baseUrl = server.url;
  stop = started.stop;
  browser = await launchBrowser();

  await root.call('POST', '/api/setup', { username: 'root', password: rootPassword, confirmPassword: rootPassword });
  await root.login('root', rootPassword);
  await root.call('POST', '/api/channel/', {
    name: 'mock-openai',
    type: 1,
    key: 'mock-key',
    base_url: drip.url,
    models: 'gpt-4o-mini,gpt-4o',
    group: 'default',
  });
  const channels = await root.call<{ items: { id: number; name: string }[] }>('GET', '/api/channel/?p=1&page_size=10');
  channelId = channels.items.find((channel) => channel.name === 'mock-openai')!.id;
  await root.call('POST', '/api/user/', { username: 'alice', password: alicePassword, display_name: 'Alice' });
  const users = await root.call<{ items: { id: number; username: string }[] }>('GET', '/api/user/?p=1&page_size=10');
  const aliceId = users.items.find((user) => user.username === 'alice')!.id;
  await root.call('PUT', '/api/user/', { id: aliceId, username: 'alice', display_name: 'Alice', quota: 50_000_000, group: 'default' });
  await root.call('PUT', '/api/user/', { id: 1, username: 'root', display_name: 'Root User', quota: 50_000_000, group: 'default' });
  await alice.login('alice', alicePassword);
  aliceKey = await createToken(alice, 'alice-key');
  rootKey = await createToken(root, 'root-key');
  await root.call('PUT', '/api/option/', {
    key: 'Chats',
    value: JSON.stringify([{ 'About page': `${baseUrl}/about?key={key}&url={address}` }]),
  });

  // Calls through the official client: alice streams and asks once without streaming; root asks once.
  const aliceClient = new OpenAI({ apiKey: aliceKey, baseURL: `${baseUrl}/v1` });
  const stream = await aliceClient.chat.completions.create({
    model: 'gpt-4o-mini',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Say hello' }],
  });
  let streamed = '';
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? '';
  expect(streamed).toBe(answer);
  const plain = await aliceClient.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello again' }] });
  expect(plain.choices[0]!.message.content).toBe(answer);
  const rootClient = new OpenAI({ apiKey: rootKey, baseURL: `${baseUrl}/v1` });
  await rootClient.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'root here' }] });
  await server.relay.usage.flush();
  await aggregateQuotaData(server.ctx, { settleSeconds: 0 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await drip?.close();
  await mock?.close();
  await stop?.();
}, 30_000);

describe('operations and usage journey', () => {
  let admin: Page;

  it('admin usage log: rows of every user, billing detail with the retry chain, user info', async () => {
    admin = await newPage();
    await signIn(admin, 'root', rootPassword);
    await admin.goto(`${baseUrl}/log`);
    const aliceRows = admin.getByRole('row').filter({ hasText: 'alice-key' });
    await expect.poll(() => aliceRows.count(), { timeout: 15_000 }).toBe(2);
    await admin.getByRole('row').filter({ hasText: 'root-key' }).first().waitFor();
    await admin.getByText(/消耗额度：\$/).waitFor();
    await aliceRows
      .filter({ hasNotText: '非流' })
      .first()
      .getByRole('button', { name: /展开行|Expand row/ })
      .click();
    const detail = admin.locator('[data-testid^="log-detail-"]').first();
    await detail.waitFor();
    await expect.poll(() => detail.innerText()).toContain('模型倍率');
    const text = await detail.innerText();
    expect(text).toContain('分组倍率');
    expect(text).toContain('补全倍率');
    expect(text).toContain('缓存 Tokens');
    expect(text).toContain('首字时间');
    expect(text).toContain(`#${channelId}`);
    await shot(admin, 'logs-zh-light');
    await admin.getByRole('row').filter({ hasText: 'alice-key' }).first().getByText('alice', { exact: true }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByText('请求次数').waitFor();
    expect(await dialog.innerText()).toContain('alice');
    await shot(admin, 'logs-user-info-zh-light');
    await dialog.getByRole('button', { name: /Close|关闭/ }).click();
  });

  it('dashboard shows the aggregated requests', async () => {
    await admin.goto(`${baseUrl}/detail`);
    await admin.getByRole('img', { name: '模型消耗分布' }).waitFor();
    const requests = admin.locator('.ant-statistic').filter({ hasText: '请求次数' });
    await expect.poll(() => requests.innerText()).toContain('3');
    await admin.locator('.recharts-legend-item').filter({ hasText: 'gpt-4o-mini' }).first().waitFor();
    await shot(admin, 'dashboard-zh-light');
  });

  it('pricing lists the model with the price the formula gives', async () => {
    const pricing = (await (await fetch(`${baseUrl}/api/pricing`)).json()) as {
      data: { model_name: string; model_ratio: number; completion_ratio: number }[];
      group_ratio: Record<string, number>;
    };
    const model = pricing.data.find((entry) => entry.model_name === 'gpt-4o-mini')!;
    const group = pricing.group_ratio.default ?? 1;
    const prompt = Number((model.model_ratio * 2 * group).toFixed(6));
    const completion = Number((model.model_ratio * model.completion_ratio * 2 * group).toFixed(6));
    await admin.goto(`${baseUrl}/pricing`);
    const row = admin.getByRole('row').filter({ hasText: 'gpt-4o-mini' });
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain(`提示 $${prompt} / 1M tokens`);
    expect(text).toContain(`补全 $${completion} / 1M tokens`);
    expect(text).toContain(`补全倍率：${model.completion_ratio.toFixed(3)}`);
    await admin.getByText('您的分组为：default，分组倍率为：1').waitFor();
    await shot(admin, 'pricing-zh-light');
  });

  it('playground streams the answer piece by piece', async () => {
    await admin.goto(`${baseUrl}/playground`);
    await admin.getByText('还没有消息。选择模型并发送消息即可试用，这里的调用会消耗您的额度。').waitFor();
    await admin.getByLabel('输入消息').fill('Tell me something');
    await admin.getByRole('button', { name: /发\s*送/ }).click();
    const reply = admin.locator('[data-role="assistant"]').first();
    await reply.waitFor({ timeout: 10_000 }).catch(async (error: unknown) => {
      await shot(admin, 'debug-playground');
      throw error;
    });
    const seen = new Set<string>();
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const [status, content] = await Promise.all([reply.getAttribute('data-status'), reply.innerText()]);
      if (status === 'incomplete') seen.add(content);
      if (status === 'complete') break;
      await admin.waitForTimeout(20);
    }
    expect(await reply.getAttribute('data-status')).toBe('complete');
    expect(await reply.innerText()).toBe(answer);
    const partial = [...seen].filter((text) => text.length > 0 && text.length < answer.length && answer.startsWith(text));
    expect(partial.length).toBeGreaterThan(1);
    const request = mock.requests.filter((entry) => entry.path.endsWith('/chat/completions')).at(-1)!;
    expect(request.body.messages[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
    expect(request.body.model).toBe('gpt-4o-mini');
    await shot(admin, 'playground-zh-light');
  });

  it('embedded chat frames the configured link with the key and address', async () => {
    await admin.goto(`${baseUrl}/chat/0`);
    const frame = admin.locator('iframe');
    await frame.waitFor();
    const src = (await frame.getAttribute('src'))!;
    // {address} is URL-encoded, as new-api fills it.
    expect(src).toBe(`${baseUrl}/about?key=${rootKey}&url=${encodeURIComponent(baseUrl)}`);
    const content = await (await frame.elementHandle())!.contentFrame();
    await content!.locator('.ant-layout').first().waitFor();
    await content!.waitForLoadState('networkidle');
    await shot(admin, 'chat-zh-light');
    await admin.goto(`${baseUrl}/chat2link`);
    await admin.waitForURL(
      (url) => url.pathname === '/about' && url.searchParams.get('key') === rootKey && url.searchParams.get('url') === baseUrl,
    );
  });

  it('settings tabs render and the visual editor lists the channel models', async () => {
    for (const tab of ['operation', 'ratelimit', 'models', 'other']) {
      await admin.goto(`${baseUrl}/setting?tab=${tab}`);
      await admin.locator('.ant-card-head-title').first().waitFor();
      await shot(admin, `settings-${tab}-zh-light`);
    }
    await admin.goto(`${baseUrl}/setting?tab=operation&section=pricing`);
    await admin.getByRole('tab', { name: '可视化倍率设置' }).click();
    await admin.getByRole('tabpanel', { name: '可视化倍率设置' }).getByLabel('搜索模型名称').fill('gpt-4o');
    await admin.getByLabel('gpt-4o-mini 模型倍率').waitFor();
    await admin.getByLabel('gpt-4o-mini 模型倍率').scrollIntoViewIfNeeded();
    await shot(admin, 'settings-ratio-editor-zh-light');
    await admin.getByRole('tab', { name: '未设置倍率模型' }).click();
    await admin.getByText('所有渠道中的模型都已设置价格或倍率').waitFor();
    await admin.close();
  });

  it('a regular user sees only their own logs (English, dark)', async () => {
    const page = await newPage();
    await signIn(page, 'alice', alicePassword, { language: 'en', theme: 'dark' });
    await page.goto(`${baseUrl}/log`);
    await page.getByRole('heading', { name: 'Usage log' }).waitFor();
    const rows = page.getByRole('row').filter({ hasText: 'alice-key' });
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    expect(await page.getByRole('row').filter({ hasText: 'root-key' }).count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'User' }).count()).toBe(0);
    expect(await page.getByLabel('Channel ID').count()).toBe(0);
    await rows
      .first()
      .getByRole('button', { name: /Expand row/ })
      .click();
    const detail = page.locator('[data-testid^="log-detail-"]').first();
    await detail.waitFor();
    expect(await detail.innerText()).not.toContain('Retry chain');
    await shot(page, 'logs-en-dark');
    for (const [route, name, ready] of [
      ['/detail', 'dashboard-en-dark', 'Quota by model'],
      ['/pricing', 'pricing-en-dark', 'Model pricing'],
      ['/playground', 'playground-en-dark', 'No messages yet.'],
    ] as const) {
      await page.goto(`${baseUrl}${route}`);
      await page.getByText(ready).first().waitFor();
      await shot(page, name);
    }
    await page.close();
  });

  it('admin screens in English and dark', async () => {
    const page = await newPage();
    await signIn(page, 'root', rootPassword, { language: 'en', theme: 'dark' });
    for (const tab of ['operation', 'ratelimit', 'models']) {
      await page.goto(`${baseUrl}/setting?tab=${tab}`);
      await page.locator('.ant-card-head-title').first().waitFor();
      await shot(page, `settings-${tab}-en-dark`);
    }
    await page.goto(`${baseUrl}/log`);
    await page.getByRole('row').filter({ hasText: 'alice-key' }).first().waitFor();
    await shot(page, 'logs-admin-en-dark');
    await page.close();
  });

  it('without an enabled token the chat page says so and goes to /token', async () => {
    const page = await newPage();
    await signIn(page, 'alice', alicePassword);
    const tokens = await alice.call<{ items: { id: number; name: string }[] }>('GET', '/api/token/?p=1&size=100');
    for (const token of tokens.items) await alice.call('PUT', '/api/token/?status_only=true', { id: token.id, status: 2 });
    await page.goto(`${baseUrl}/chat/0`);
    await page.getByText('当前没有可用的启用令牌，请确认是否有令牌处于启用状态！').first().waitFor();
    await shot(page, 'chat-no-token-zh-light');
    await page.waitForURL('**/token', { timeout: 5000 });
    await page.close();
  });

  it('had no page errors', () => {
    expect(unexpected()).toEqual([]);
  });
});
