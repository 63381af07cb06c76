import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelTestPeriodMs } from '../../src/api/channels/probe/channel-checks.js';
import { runChannelTest } from '../../src/api/channels/probe/test-channel.js';
import { startFlakyUpstream, type FlakyUpstream } from '../helpers/flaky-upstream.js';
import { createRelayChannel } from '../helpers/relay-fixtures.js';
import { relayFacade } from '../../src/relay/facade.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

const redisUrl = process.env.TEST_REDIS_URL;
/** CHANNEL_TEST_FREQUENCY and CHANNEL_UPDATE_FREQUENCY in minutes: 1.2 s. */
const periodMinutes = 0.02;
const periodMs = periodMinutes * 60_000;

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(storageKinds())('periodic channel checks on %s', (kind) => {
  let database: TestDatabase;
  let upstream: FlakyUpstream;
  const servers: TestServer[] = [];
  /** Each instance's server log lines (JSON). */
  const logs: string[][] = [];

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    upstream = await startFlakyUpstream();
    // Two instances on one database sharing Redis when it is configured (else one instance).
    const shared: Record<string, string> = redisUrl
      ? { REDIS_CONN_STRING: redisUrl, REDIS_KEY_PREFIX: `mg-checks-${randomBytes(4).toString('hex')}:` }
      : {};
    const env = {
      ...shared,
      CHANNEL_TEST_FREQUENCY: String(periodMinutes),
      CHANNEL_UPDATE_FREQUENCY: String(periodMinutes),
      LOG_LEVEL: 'info',
    };
    for (const nodeType of redisUrl ? ['master', 'slave'] : ['master']) {
      const lines: string[] = [];
      logs.push(lines);
      servers.push(
        await startTestServer({
          database,
          env: { ...env, NODE_TYPE: nodeType },
          loggerStream: { write: (line: string) => void lines.push(line) },
        }),
      );
    }
    for (const server of servers) {
      await server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
      await server.ctx.options.set('AutomaticEnableChannelEnabled', 'true');
    }
  });
  afterAll(async () => {
    for (const server of servers.reverse()) await server.stop();
    await upstream?.close();
    await database?.drop();
  });

  const db = () => servers[0]!.ctx.storage.db;
  const statusOf = async (id: number) =>
    (await db().selectFrom('channels').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const logRowsOf = async (id: number) =>
    db().selectFrom('logs').select(['type', 'user_id', 'content']).where('channel_id', '=', id).orderBy('id').execute();
  const linesWith = (text: string) => logs.flat().filter((line) => line.includes(text));
  const channel = (name: string, key: string, extra: { autoBan?: boolean; status?: number } = {}) =>
    createRelayChannel(servers[0]!.ctx, { name, key, baseURL: upstream.url, models: ['gpt-4o-mini'], ...extra });

  it('an upstream that fails and comes back: its channel is disabled, then enabled again, each once and by one instance', async () => {
    upstream.setMode('k-flaky', 'revoked');
    upstream.setMode('k-no-ban', 'revoked');
    upstream.setMode('k-manual', 'ok');
    const flaky = await channel('flaky', 'k-flaky');
    const noBan = await channel('no-ban', 'k-no-ban', { autoBan: false });
    const manual = await channel('manual', 'k-manual', { status: 2 });

    await waitFor(async () => (await statusOf(flaky)) === 3, 'the failing channel to be disabled');
    upstream.setMode('k-flaky', 'ok');
    await waitFor(async () => (await statusOf(flaky)) === 1, 'the channel to come back');
    // Two more runs: a second instance running too, or a repeated change, would show now.
    const testsSoFar = upstream.testsOf('k-flaky').length;
    await waitFor(() => upstream.testsOf('k-flaky').length >= testsSoFar + 2, 'two more runs');

    expect(await logRowsOf(flaky)).toEqual([
      { type: 4, user_id: 0, content: `渠道「flaky」（#${flaky}）已自动禁用，原因：测试失败 status 401: Incorrect API key provided.` },
      { type: 4, user_id: 0, content: `渠道「flaky」（#${flaky}）测试通过，已自动启用` },
    ]);
    expect(linesWith(`（#${flaky}）已自动禁用`)).toHaveLength(1);
    expect(linesWith(`（#${flaky}）测试通过，已自动启用`)).toHaveLength(1);
    // One instance at a time: the tests of a channel are at least a period apart (a run starts a
    // period after the previous one ended, whichever instance ran it).
    const times = upstream.testsOf('k-flaky').map((request) => request.at);
    const gaps = times.slice(1).map((at, index) => at - times[index]!);
    expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(periodMs - 20);

    // auto_ban off: tested, failing, and still enabled, with nothing logged.
    expect(upstream.testsOf('k-no-ban').length).toBeGreaterThanOrEqual(3);
    expect(await statusOf(noBan)).toBe(1);
    expect(await logRowsOf(noBan)).toEqual([]);
    // Disabled by hand: never tested, never enabled.
    expect(upstream.testsOf('k-manual')).toEqual([]);
    expect(await statusOf(manual)).toBe(2);
    // At least the runs that disabled and enabled it and one after (the last may still be going).
    expect(linesWith('periodic channel test done').length).toBeGreaterThanOrEqual(3);
  });

  it('the balance refresh disables a channel whose balance ran out, once, and stores the balances', async () => {
    upstream.setBalance('k-broke', 0);
    upstream.setMode('k-broke', 'down');
    upstream.setBalance('k-rich', 12.5);
    const broke = await channel('broke', 'k-broke');
    const rich = await channel('rich', 'k-rich');
    await waitFor(async () => (await statusOf(broke)) === 3, 'the channel without balance to be disabled');
    await waitFor(
      async () => (await db().selectFrom('channels').select('balance').where('id', '=', rich).executeTakeFirstOrThrow()).balance === 12.5,
      'the balance to be stored',
    );
    // The channel test keeps trying it (auto-disabled) but a failing test never enables it.
    const testsSoFar = upstream.testsOf('k-broke').length;
    await waitFor(() => upstream.testsOf('k-broke').length >= testsSoFar + 2, 'two more test runs');
    expect(await statusOf(broke)).toBe(3);
    expect(await statusOf(rich)).toBe(1);
    expect(await logRowsOf(broke)).toEqual([{ type: 4, user_id: 0, content: `渠道「broke」（#${broke}）已自动禁用，原因：余额不足（0）` }]);
    expect(linesWith(`（#${broke}）已自动禁用`)).toHaveLength(1);
    expect(linesWith('periodic balance refresh done').length).toBeGreaterThan(0);
  });
});

describe('the monitoring options and a channel disabled by hand during a test', () => {
  let server: TestServer;
  let upstream: FlakyUpstream;
  beforeAll(async () => {
    server = await startTestServer();
    upstream = await startFlakyUpstream();
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('turn the periodic test on without CHANNEL_TEST_FREQUENCY; an admin sets them, out of range is refused', async () => {
    expect(channelTestPeriodMs(server.ctx)).toBeNull();
    const { client: admin } = await signedInClient(server, { username: `adm${randomBytes(3).toString('hex')}`, role: 10 });
    expect(
      (await admin.request('PUT', '/api/option/', { key: 'monitor_setting.auto_test_channel_minutes', value: '5' })).body.success,
    ).toBe(true);
    expect(channelTestPeriodMs(server.ctx)).toBeNull();
    expect(
      (await admin.request('PUT', '/api/option/', { key: 'monitor_setting.auto_test_channel_enabled', value: 'true' })).body.success,
    ).toBe(true);
    expect(channelTestPeriodMs(server.ctx)).toBe(5 * 60_000);
    for (const value of ['0', '1.5', 'soon']) {
      expect(
        (await admin.request('PUT', '/api/option/', { key: 'monitor_setting.auto_test_channel_minutes', value })).body.success,
        value,
      ).toBe(false);
    }
    const options = await admin.get('/api/option/');
    expect(options.body.data).toEqual(
      expect.arrayContaining([
        { key: 'monitor_setting.auto_test_channel_enabled', value: 'true' },
        { key: 'monitor_setting.auto_test_channel_minutes', value: '5' },
      ]),
    );
  });

  it('a channel an admin disables while its test is in flight stays disabled by hand, whatever the test finds', async () => {
    const ctx = server.ctx;
    for (const key of ['AutomaticDisableChannelEnabled', 'AutomaticEnableChannelEnabled']) await ctx.options.set(key, 'true');
    upstream.setMode('k-race-fail', 'revoked');
    for (const key of ['k-race-fail', 'k-race-pass']) upstream.setDelay(key, 400);
    const failing = await createRelayChannel(ctx, {
      name: 'race-fail',
      key: 'k-race-fail',
      baseURL: upstream.url,
      models: ['gpt-4o-mini'],
    });
    const passing = await createRelayChannel(ctx, {
      name: 'race-pass',
      key: 'k-race-pass',
      baseURL: upstream.url,
      models: ['gpt-4o-mini'],
      status: 3,
    });
    const relay = relayFacade(server.relay);
    const tests = [runChannelTest(ctx, relay, failing), runChannelTest(ctx, relay, passing)];
    await new Promise((resolve) => setTimeout(resolve, 150));
    await ctx.storage.db.updateTable('channels').set({ status: 2 }).where('id', 'in', [failing, passing]).execute();
    const [failed, passed] = await Promise.all(tests);
    expect(failed).toMatchObject({ result: { success: false }, change: null });
    expect(passed).toMatchObject({ result: { success: true }, change: null });
    const rows = await ctx.storage.db.selectFrom('channels').select('status').where('id', 'in', [failing, passing]).execute();
    expect(rows.map((row) => row.status)).toEqual([2, 2]);
    expect(await ctx.storage.db.selectFrom('logs').select('id').where('channel_id', 'in', [failing, passing]).execute()).toEqual([]);
  });
});
