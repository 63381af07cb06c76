import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * Groups as new-api has them: an `auto` token takes the first of its auto groups (AutoGroups, in
 * order, among the user's usable groups) with a channel for the model; with cross_group_retry a call
 * whose channels all failed in that group goes on in the next; GroupGroupRatio gives a user group a
 * special ratio for a token group. Each shows in the consume log's `other`.
 */
describe('auto group, cross-group retry and group-to-group ratios', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let userId: number;
  let vipChannel: number;
  let defaultChannel: number;

  const chat = async (apiKey: string, model: string) => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello there' }] }),
    });
    return { status: res.status, text: await res.text() };
  };
  const lastLog = async (user = userId) => {
    await flushRelay(server.ctx);
    const row = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', user)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return { ...row, other: JSON.parse(row.other) as Record<string, unknown> };
  };

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组', auto: '自动选择' }));
    await setOption(server.ctx, 'GroupRatio', JSON.stringify({ default: 1, vip: 2, svip: 1 }));
    await setOption(server.ctx, 'AutoGroups', JSON.stringify(['vip', 'default']));
    // gpt-4o-mini: only in default. gpt-4o: vip and default. gpt-4.1: a failing vip channel, a healthy default one.
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini', 'gpt-4o'], groups: ['default'] });
    await createRelayChannel(server.ctx, { key: 'healthy-vip', baseURL: mock.url, models: ['gpt-4o'], groups: ['vip'] });
    vipChannel = await createRelayChannel(server.ctx, {
      key: 'fail-500',
      baseURL: mock.url,
      models: ['gpt-4.1', 'gpt-3.5-turbo'],
      groups: ['vip'],
      autoBan: false,
    });
    defaultChannel = await createRelayChannel(server.ctx, {
      key: 'healthy-default',
      baseURL: mock.url,
      models: ['gpt-4.1', 'gpt-3.5-turbo'],
      groups: ['default'],
    });
    await createRelayChannel(server.ctx, {
      key: 'fail-400',
      baseURL: mock.url,
      models: ['gpt-3.5-turbo'],
      groups: ['vip'],
      priority: 5,
      autoBan: false,
    });
    userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  it('sends an auto token to the first auto group with a channel for the model, and logs it', async () => {
    const { apiKey } = await createRelayToken(server.ctx, userId, { group: 'auto' });
    // vip (first in AutoGroups) has no gpt-4o-mini channel: default serves it at default's ratio.
    const first = await chat(apiKey, 'gpt-4o-mini');
    expect(first.status, first.text).toBe(200);
    const log = await lastLog();
    expect(log.group).toBe('default');
    expect(log.other).toMatchObject({
      group: 'default',
      auto_group: 'default',
      requested_group: 'auto',
      group_ratio: 1,
      user_group_ratio: -1,
    });

    // vip serves gpt-4o: it is taken first, and billed at vip's ratio.
    mock.requests.length = 0;
    const second = await chat(apiKey, 'gpt-4o');
    expect(second.status, second.text).toBe(200);
    expect(mock.requestsFor('healthy-vip')).toHaveLength(1);
    const vipLog = await lastLog();
    expect(vipLog.group).toBe('vip');
    expect(vipLog.other).toMatchObject({ auto_group: 'vip', group_ratio: 2 });

    // /v1/models lists what every auto group serves.
    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    const ids = ((await models.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['gpt-4o-mini', 'gpt-4o', 'gpt-4.1']));
  });

  it('refuses auto when it is not a usable group, and names auto when no auto group serves the model', async () => {
    const { apiKey } = await createRelayToken(server.ctx, userId, { group: 'auto' });
    const unknown = await chat(apiKey, 'gpt-4-nowhere');
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain('auto');
    await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组' }));
    try {
      const refused = await chat(apiKey, 'gpt-4o-mini');
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('group_not_allowed');
    } finally {
      await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组', auto: '自动选择' }));
    }
  });

  it('continues into the next auto group only with cross_group_retry, billing the group that served', async () => {
    const plain = await createRelayToken(server.ctx, userId, { group: 'auto' });
    mock.requests.length = 0;
    const failed = await chat(plain.apiKey, 'gpt-4.1');
    expect(failed.status).toBe(500);
    expect(mock.requestsFor('fail-500')).toHaveLength(1);
    expect(mock.requestsFor('healthy-default')).toHaveLength(0);

    const crossing = await createRelayToken(server.ctx, userId, { group: 'auto', crossGroupRetry: true });
    mock.requests.length = 0;
    const served = await chat(crossing.apiKey, 'gpt-4.1');
    expect(served.status, served.text).toBe(200);
    expect(mock.requestsFor('fail-500')).toHaveLength(1);
    expect(mock.requestsFor('healthy-default')).toHaveLength(1);
    const log = await lastLog();
    expect(log.group).toBe('default');
    expect(log.channel_id).toBe(defaultChannel);
    expect(log.other).toMatchObject({
      auto_group: 'default',
      group_ratio: 1,
      admin_info: { use_channel: [String(vipChannel), String(defaultChannel)] },
    });
    // The request's own fault (a 400) is not retried in another group.
    mock.requests.length = 0;
    const rejected = await chat(crossing.apiKey, 'gpt-3.5-turbo');
    expect(rejected.status).toBe(400);
    expect(mock.requestsFor('healthy-default')).toHaveLength(0);
  });

  it('gives each group its own RetryTimes, and never tries a failed channel twice', async () => {
    await createRelayChannel(server.ctx, { key: 'fail-500', baseURL: mock.url, models: ['gpt-4.1-mini'], groups: ['vip'], autoBan: false });
    await createRelayChannel(server.ctx, { key: 'fail-502', baseURL: mock.url, models: ['gpt-4.1-mini'], groups: ['vip'], autoBan: false });
    await createRelayChannel(server.ctx, { key: 'healthy-default', baseURL: mock.url, models: ['gpt-4.1-mini'], groups: ['default'] });
    await setOption(server.ctx, 'RetryTimes', '1');
    try {
      const plain = await createRelayToken(server.ctx, userId, { group: 'auto' });
      mock.requests.length = 0;
      expect((await chat(plain.apiKey, 'gpt-4.1-mini')).status).toBeGreaterThanOrEqual(500);
      expect(mock.requestsFor('fail-500').length + mock.requestsFor('fail-502').length).toBe(2);
      expect(mock.requestsFor('healthy-default')).toHaveLength(0);

      const crossing = await createRelayToken(server.ctx, userId, { group: 'auto', crossGroupRetry: true });
      mock.requests.length = 0;
      const served = await chat(crossing.apiKey, 'gpt-4.1-mini');
      expect(served.status, served.text).toBe(200);
      expect(mock.requestsFor('fail-500')).toHaveLength(1);
      expect(mock.requestsFor('fail-502')).toHaveLength(1);
      expect(mock.requestsFor('healthy-default')).toHaveLength(1);
      expect(((await lastLog()).other.admin_info as { use_channel: string[] }).use_channel).toHaveLength(3);
    } finally {
      await setOption(server.ctx, 'RetryTimes', '0');
    }
  });

  it('a token in a fixed group never crosses, with or without the flag', async () => {
    const fixed = await createRelayToken(server.ctx, userId, { group: 'vip', crossGroupRetry: true });
    mock.requests.length = 0;
    expect((await chat(fixed.apiKey, 'gpt-4.1')).status).toBe(500);
    expect(mock.requestsFor('healthy-default')).toHaveLength(0);
  });

  it('bills a user group special ratio from GroupGroupRatio and shows it in the log', async () => {
    const vipUser = await createRelayUser(server.ctx, { quota: 100_000_000, group: 'vip' });
    const { apiKey } = await createRelayToken(server.ctx, vipUser, { group: 'default' });
    expect((await chat(apiKey, 'gpt-4o-mini')).status).toBe(200);
    const normal = await lastLog(vipUser);
    expect(normal.other).toMatchObject({ group_ratio: 1, user_group_ratio: -1 });

    await setOption(server.ctx, 'GroupGroupRatio', JSON.stringify({ vip: { default: 10 } }));
    expect((await chat(apiKey, 'gpt-4o-mini')).status).toBe(200);
    const special = await lastLog(vipUser);
    expect(special.other).toMatchObject({ group_ratio: 10, user_group_ratio: 10 });
    expect(special.content).toContain('分组倍率 10');
    // The same call at ten times the ratio: (prompt + completion × completion ratio) × model ratio × 10.
    const { model_ratio: modelRatio, completion_ratio: completionRatio } = special.other as {
      model_ratio: number;
      completion_ratio: number;
    };
    expect(Number(special.quota)).toBe(Math.round((special.prompt_tokens + special.completion_tokens * completionRatio) * modelRatio * 10));
    // Another user group keeps the plain ratio.
    const { apiKey: plainKey } = await createRelayToken(server.ctx, userId, { group: 'default' });
    expect((await chat(plainKey, 'gpt-4o-mini')).status).toBe(200);
    expect((await lastLog()).other).toMatchObject({ group_ratio: 1, user_group_ratio: -1 });
    await expect(setOption(server.ctx, 'GroupGroupRatio', JSON.stringify({ vip: { default: -1 } }))).rejects.toThrow();
    await expect(setOption(server.ctx, 'GroupGroupRatio', JSON.stringify({ vip: 2 }))).rejects.toThrow();
    await expect(setOption(server.ctx, 'AutoGroups', JSON.stringify(['auto']))).rejects.toThrow();
  });
});

/** A task submit resolves `auto` the same way: the first auto group with a channel for the action's model. */
describe('auto group on a Suno submit', () => {
  let server: TestServer;
  let suno: SunoUpstream;

  beforeAll(async () => {
    suno = await startSunoUpstream('suno-key');
    server = await startTestServer({ env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1 }));
    await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组', auto: '自动选择' }));
    await setOption(server.ctx, 'GroupRatio', JSON.stringify({ default: 1, vip: 2 }));
    await setOption(server.ctx, 'AutoGroups', JSON.stringify(['default', 'vip']));
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: suno.url, models: ['suno_music'], groups: ['vip'] });
  });
  afterAll(async () => {
    await server?.stop();
    await suno?.close();
  });

  it('bills the task at the auto group it used and logs it', async () => {
    const userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
    const { apiKey } = await createRelayToken(server.ctx, userId, { group: 'auto' });
    suno.nextScript([{ status: 'SUCCESS' }]);
    const res = await fetch(`${server.url}/suno/submit/music`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a song about groups' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const log = await server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .executeTakeFirstOrThrow();
    expect(log.group).toBe('vip');
    expect(Number(log.quota)).toBe(0.1 * 500_000 * 2);
    expect(JSON.parse(log.other)).toMatchObject({ auto_group: 'vip', requested_group: 'auto' });
  });

  it('with cross_group_retry goes on into the next auto group, billed at the group that served', async () => {
    // default (first in AutoGroups) now has a channel for the model, which cannot be reached.
    const deadChannel = await createRelayChannel(server.ctx, {
      type: 36,
      key: 'suno-key',
      baseURL: `http://127.0.0.1:${await closedPort()}`,
      models: ['suno_music'],
      groups: ['default'],
      autoBan: false,
    });
    const userId = await createRelayUser(server.ctx, { quota: 10_000_000 });
    const submit = (apiKey: string) =>
      fetch(`${server.url}/suno/submit/music`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'a song about crossing' }),
      });
    const consumeLogs = () =>
      server.ctx.storage.db.selectFrom('logs').selectAll().where('user_id', '=', userId).where('type', '=', 2).execute();

    const plain = await createRelayToken(server.ctx, userId, { group: 'auto' });
    const failed = await submit(plain.apiKey);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(await consumeLogs()).toHaveLength(0);

    const crossing = await createRelayToken(server.ctx, userId, { group: 'auto', crossGroupRetry: true });
    suno.nextScript([{ status: 'SUCCESS' }]);
    const served = await submit(crossing.apiKey);
    expect(served.status, await served.clone().text()).toBe(200);
    const logs = await consumeLogs();
    expect(logs).toHaveLength(1);
    expect(logs[0]!.group).toBe('vip');
    expect(logs[0]!.channel_id).not.toBe(deadChannel);
    // The hold was priced at default's ratio (1); the bill is vip's (2).
    expect(Number(logs[0]!.quota)).toBe(0.1 * 500_000 * 2);
    expect(JSON.parse(logs[0]!.other)).toMatchObject({ auto_group: 'vip', requested_group: 'auto' });
    const user = await server.ctx.storage.db
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(Number(user.quota)).toBe(10_000_000 - 100_000);
    expect(Number(user.used_quota)).toBe(100_000);
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
