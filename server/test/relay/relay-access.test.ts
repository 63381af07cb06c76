import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption, settleBus } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('relay token auth, limits and error statuses', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let userId: number;

  const chat = (apiKey: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
    });
  const errorOf = async (response: Response) => ({ status: response.status, error: (await response.json()).error });

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini', 'gpt-4o', 'unpriced-model'] });
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('rejects missing, unknown and disabled tokens with 401, OpenAI-shaped', async () => {
    const missing = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(401);
    expect((await missing.json()).error).toMatchObject({ type: 'authentication_error', param: null, code: 'invalid_api_key' });
    expect((await errorOf(await chat('sk-doesnotexist'))).status).toBe(401);
    const disabled = await createRelayToken(server.ctx, userId, { status: 2 });
    expect((await errorOf(await chat(disabled.apiKey))).status).toBe(401);
  });

  it('rejects an expired token with 401 and writes status 3', async () => {
    const token = await createRelayToken(server.ctx, userId, { expiredTime: Math.floor(Date.now() / 1000) - 10 });
    const result = await errorOf(await chat(token.apiKey));
    expect(result.status).toBe(401);
    expect(result.error.message).toContain('expired');
    await flushRelay(server.ctx);
    const row = await server.ctx.storage.db.selectFrom('tokens').select('status').where('id', '=', token.id).executeTakeFirstOrThrow();
    expect(row.status).toBe(3);
  });

  it('spends a limited token down, then rejects it as exhausted (401) and writes status 4', async () => {
    const token = await createRelayToken(server.ctx, userId, { remainQuota: 40 });
    // With max_tokens the hold is small; without it, it covers gpt-4o-mini's 16,384-token default output (> 40).
    const unbounded = await errorOf(await chat(token.apiKey));
    expect(unbounded).toMatchObject({ status: 403, error: { code: 'insufficient_token_quota' } });
    const first = await chat(token.apiKey, { max_tokens: 16 });
    expect(first.status).toBe(200);
    await first.json();
    const second = await chat(token.apiKey, { model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(4000) }] });
    expect(second.status).toBe(403);
    expect((await second.json()).error.code).toBe('insufficient_token_quota');
    // Spend the rest with gpt-4o until the token is at zero or below.
    await server.ctx.storage.db.updateTable('tokens').set({ remain_quota: 0 }).where('id', '=', token.id).execute();
    await server.ctx.bus.publish('tokens', String(token.id));
    await settleBus(server.ctx);
    const exhausted = await errorOf(await chat(token.apiKey));
    expect(exhausted.status).toBe(401);
    expect(exhausted.error.message).toContain('used up');
    await flushRelay(server.ctx);
    const row = await server.ctx.storage.db.selectFrom('tokens').select('status').where('id', '=', token.id).executeTakeFirstOrThrow();
    expect(row.status).toBe(4);
  });

  it('enforces model limits (403) and the IP allow list, IPv4 and IPv6 with CIDR (403)', async () => {
    const limited = await createRelayToken(server.ctx, userId, { modelLimits: ['gpt-4o'] });
    const refused = await errorOf(await chat(limited.apiKey));
    expect(refused).toMatchObject({ status: 403, error: { code: 'model_not_allowed' } });
    expect((await chat(limited.apiKey, { model: 'gpt-4o' })).status).toBe(200);

    const elsewhere = await createRelayToken(server.ctx, userId, { allowIps: '10.0.0.0/8\n2001:db8::/32' });
    expect(await errorOf(await chat(elsewhere.apiKey))).toMatchObject({ status: 403, error: { code: 'ip_not_allowed' } });
    const loopbackV4 = await createRelayToken(server.ctx, userId, { allowIps: '10.0.0.1\n127.0.0.0/8' });
    expect((await chat(loopbackV4.apiKey)).status).toBe(200);
    const loopbackV6 = await createRelayToken(server.ctx, userId, { allowIps: '::1' });
    const v6 = await fetch(`${server.url.replace('127.0.0.1', '[::1]')}/v1/models`, {
      headers: { authorization: `Bearer ${loopbackV6.apiKey}` },
    }).catch(() => null);
    // The test server listens on IPv4 only; a v6-only list must refuse the v4 caller.
    expect(v6 === null || v6.status !== 200).toBe(true);
    expect((await chat(loopbackV6.apiKey)).status).toBe(403);
  });

  it('refuses a disabled user (403), a group the user may not use (403) and an empty balance (403 insufficient_user_quota)', async () => {
    const bannedUser = await createRelayUser(server.ctx, { status: 2 });
    const banned = await createRelayToken(server.ctx, bannedUser);
    expect(await errorOf(await chat(banned.apiKey))).toMatchObject({ status: 403, error: { code: 'user_disabled' } });
    const grouped = await createRelayToken(server.ctx, userId, { group: 'secret-group' });
    expect(await errorOf(await chat(grouped.apiKey))).toMatchObject({ status: 403, error: { code: 'group_not_allowed' } });
    const poorUser = await createRelayUser(server.ctx, { quota: 0 });
    const poor = await createRelayToken(server.ctx, poorUser);
    expect(await errorOf(await chat(poor.apiKey))).toMatchObject({ status: 403, error: { code: 'insufficient_user_quota' } });
  });

  it('answers 404 model_not_found when no channel serves the model in the group', async () => {
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), 'orphan-model': 1 }),
    );
    const token = await createRelayToken(server.ctx, userId);
    expect(await errorOf(await chat(token.apiKey, { model: 'orphan-model' }))).toMatchObject({
      status: 404,
      error: { code: 'model_not_found' },
    });
    // Unpriced as well: still model_not_found, not a price error (the price is not what is missing).
    expect(await errorOf(await chat(token.apiKey, { model: 'orphan-unpriced' }))).toMatchObject({
      status: 404,
      error: { code: 'model_not_found' },
    });
  });

  it("repeats at most 100 characters of a long model or group name, in the caller's language", async () => {
    const token = await createRelayToken(server.ctx, userId);
    const long = `m${'x'.repeat(4999)}`;
    const shown = `${long.slice(0, 100)}…`;
    const english = await errorOf(await chat(token.apiKey, { model: long }));
    expect(english).toMatchObject({ status: 404, error: { code: 'model_not_found' } });
    expect(english.error.message).toBe(`No available channel for model ${shown} in group default`);
    const chinese = await errorOf(await chat(token.apiKey, { model: long }, { 'accept-language': 'zh-CN' }));
    expect(chinese.error.message).toBe(`当前分组 default 下对于模型 ${shown} 无可用渠道`);

    // The Anthropic route answers in its own shape, with the same cut name.
    const claude = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': token.apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: long, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(claude.status).toBe(404);
    const claudeBody = await claude.json();
    expect(claudeBody).toMatchObject({ type: 'error', error: { message: `No available channel for model ${shown} in group default` } });

    const limited = await createRelayToken(server.ctx, userId, { modelLimits: ['gpt-4o'] });
    const refused = await errorOf(await chat(limited.apiKey, { model: long }));
    expect(refused).toMatchObject({
      status: 403,
      error: { code: 'model_not_allowed', message: `This token cannot use the model ${shown}` },
    });

    // A path parameter is at most 500 characters (the router's limit; longer is a 414, test/api/bad-url.test.ts).
    const lookup = await fetch(`${server.url}/v1/models/${long.slice(0, 400)}`, { headers: { authorization: `Bearer ${token.apiKey}` } });
    expect(lookup.status).toBe(404);
    expect((await lookup.json()).error.message).toBe(`The model ${shown} does not exist`);
  });

  it('refuses a model with no price (400) unless self-use mode or the user setting allows it', async () => {
    const token = await createRelayToken(server.ctx, userId);
    const refused = await errorOf(await chat(token.apiKey, { model: 'unpriced-model' }, { 'accept-language': 'zh-CN' }));
    expect(refused).toMatchObject({ status: 400, error: { code: 'model_price_error' } });
    // It names the model and what fixes it: a price set by an admin, or self-use mode.
    expect(refused.error.message).toContain('unpriced-model');
    expect(refused.error.message).toContain('自用模式');
    // The setting counts for admins only (a regular user may not make unpriced models free).
    const tolerantUser = await createRelayUser(server.ctx, { role: 10, setting: JSON.stringify({ accept_unset_model_ratio_model: true }) });
    const tolerant = await createRelayToken(server.ctx, tolerantUser);
    expect((await chat(tolerant.apiKey, { model: 'unpriced-model' })).status).toBe(200);
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    expect((await chat(token.apiKey, { model: 'unpriced-model' })).status).toBe(200);
    await setOption(server.ctx, 'SelfUseModeEnabled', 'false');
    await flushRelay(server.ctx);
    // Both billed at UnsetModelRatio (37.5 × the tokens), as new-api bills them, so the usage shows.
    const logs = await server.ctx.storage.db
      .selectFrom('logs')
      .select(['quota', 'prompt_tokens', 'completion_tokens', 'other'])
      .where('model_name', '=', 'unpriced-model')
      .execute();
    expect(logs).toHaveLength(2);
    for (const row of logs) {
      expect(JSON.parse(row.other).model_ratio).toBe(37.5);
      expect(Number(row.quota)).toBe(Math.round(37.5 * (row.prompt_tokens + row.completion_tokens)));
    }
  });

  it('rate limits per user (429) with ModelRequestRateLimit*', async () => {
    const limitedUser = await createRelayUser(server.ctx);
    const token = await createRelayToken(server.ctx, limitedUser);
    await setOption(server.ctx, 'ModelRequestRateLimitCount', '2');
    await setOption(server.ctx, 'ModelRequestRateLimitEnabled', 'true');
    try {
      expect((await chat(token.apiKey)).status).toBe(200);
      expect((await chat(token.apiKey)).status).toBe(200);
      expect(await errorOf(await chat(token.apiKey))).toMatchObject({ status: 429, error: { type: 'rate_limit_error' } });
    } finally {
      await setOption(server.ctx, 'ModelRequestRateLimitEnabled', 'false');
    }
  });

  it('lets only admins pin a channel with sk-<key>-<channelId>', async () => {
    const pinned = await createRelayChannel(server.ctx, { key: 'pinned-key', baseURL: mock.url, models: ['gpt-4o-mini'], priority: -5 });
    const user = await createRelayToken(server.ctx, userId);
    expect(await errorOf(await chat(`${user.apiKey}-${pinned}`))).toMatchObject({
      status: 403,
      error: { code: 'channel_pin_not_allowed' },
    });
    const adminId = await createRelayUser(server.ctx, { role: 10 });
    const admin = await createRelayToken(server.ctx, adminId);
    const before = mock.requestsFor('pinned-key').length;
    for (let i = 0; i < 3; i += 1) expect((await chat(`${admin.apiKey}-${pinned}`)).status).toBe(200);
    expect(mock.requestsFor('pinned-key').length).toBe(before + 3);
  });

  it('serves the playground with the session cookie and bills the user', async () => {
    const api = server.client();
    const { signSession } = await import('../../src/lib/session.js');
    const playUser = await createRelayUser(server.ctx, { quota: 1_000_000 });
    const cookie = `session=${signSession('test-session-secret', playUser, 0)}`;
    const noHeader = await fetch(`${server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(noHeader.status).toBe(401);
    const response = await fetch(`${server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { cookie, 'New-Api-User': String(playUser), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', group: 'default', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('"content":"Hello"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(mock.requests.at(-1)!.body.group).toBeUndefined();
    await flushRelay(server.ctx);
    const user = await server.ctx.storage.db
      .selectFrom('users')
      .select(['used_quota'])
      .where('id', '=', playUser)
      .executeTakeFirstOrThrow();
    expect(Number(user.used_quota)).toBeGreaterThan(0);
    void api;
  });
});
