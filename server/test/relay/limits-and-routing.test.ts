import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-storage.js';

/**
 * A local OpenAI-wire upstream whose behaviour follows the channel key: `ok…` answers after 150 ms,
 * `e500…` a 500, `e401…` a 401, `r429…` a 429 with Retry-After: 2. It records, per key, every
 * request and the most requests it ever had in flight at once.
 */
interface LimitUpstream {
  url: string;
  seen: string[];
  maxInFlight: Map<string, number>;
  /** Most requests in flight at once, whatever the key. */
  peak: () => number;
  reset(): void;
  close(): Promise<void>;
}

async function startLimitUpstream(): Promise<LimitUpstream> {
  const inFlight = new Map<string, number>();
  const state = { seen: [] as string[], maxInFlight: new Map<string, number>(), total: 0, peakTotal: 0 };
  const server = http.createServer((req, res) => {
    const key = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    req.resume();
    req.on('end', () => {
      state.seen.push(key);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      if (key.startsWith('e500')) return send(500, { error: { message: 'upstream broke', type: 'server_error' } });
      if (key.startsWith('e401'))
        return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      if (key.startsWith('r429')) return send(429, { error: { message: 'slow down', type: 'rate_limit_error' } }, { 'retry-after': '2' });
      const now = (inFlight.get(key) ?? 0) + 1;
      inFlight.set(key, now);
      state.maxInFlight.set(key, Math.max(now, state.maxInFlight.get(key) ?? 0));
      state.total += 1;
      state.peakTotal = Math.max(state.peakTotal, state.total);
      setTimeout(() => {
        inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
        state.total -= 1;
        send(200, {
          id: 'chatcmpl-limits',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
        });
      }, 150);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get seen() {
      return state.seen;
    },
    maxInFlight: state.maxInFlight,
    peak: () => state.peakTotal,
    reset() {
      state.seen.length = 0;
      state.maxInFlight.clear();
      state.peakTotal = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const redisUrl = process.env.TEST_REDIS_URL;
const postgresDsn = process.env.TEST_POSTGRES_DSN;
/** Two instances sharing PostgreSQL and Redis when both are configured (CI); one SQLite instance otherwise. */
const isCluster = Boolean(redisUrl && postgresDsn);

type Answer = { status: number; code: string | null; retryAfter: string | null };

describe(`limits and routing (${isCluster ? 'two instances sharing PostgreSQL and Redis' : 'one instance'})`, () => {
  let database: TestDatabase | undefined;
  let a: TestServer;
  let b: TestServer;
  let upstream: LimitUpstream;
  let userId: number;
  let model = '';

  beforeAll(async () => {
    upstream = await startLimitUpstream();
    if (isCluster) {
      database = await createTestDatabase('postgres');
      const shared = { REDIS_CONN_STRING: redisUrl!, REDIS_KEY_PREFIX: `mg-limits-${randomBytes(4).toString('hex')}:` };
      a = await startTestServer({ database, env: { ...shared, NODE_TYPE: 'master' } });
      b = await startTestServer({ database, env: { ...shared, NODE_TYPE: 'slave' } });
    } else {
      a = await startTestServer();
      b = a;
    }
    userId = await createRelayUser(a.ctx, { quota: 1_000_000_000 });
  });
  afterAll(async () => {
    if (b !== a) await b?.stop();
    await a?.stop();
    await database?.drop();
    await upstream?.close();
  });

  /** Options on both instances (each reads its own copy until the next sync). */
  async function option(key: string, value: string) {
    await setOption(a.ctx, key, value);
    if (b !== a) await setOption(b.ctx, key, value);
  }

  /** A fresh model name per test, priced, so each test has its own channels. */
  beforeEach(async () => {
    model = `lim-${randomBytes(3).toString('hex')}`;
    upstream.reset();
    await option('ModelRatio', JSON.stringify({ ...a.ctx.options.json<Record<string, number>>('ModelRatio'), [model]: 1 }));
    await option('RetryTimes', '3');
    await option('ConcurrencyQueueEnabled', 'false');
    await option('ChannelCooldownFailures', '0');
    await option('RetryStatusCodes', '401,403,408,429,500-503,505-523,525-599');
    await option('AutomaticDisableChannelEnabled', 'true');
  });

  async function channel(key: string, extra: { priority?: number; setting?: Record<string, unknown> } = {}) {
    const id = await createRelayChannel(a.ctx, { key, baseURL: upstream.url, models: [model], ...extra });
    if (b !== a) await b.relay.channels.rebuild();
    return id;
  }

  async function call(server: TestServer, apiKey: string): Promise<Answer> {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = (await response.json()) as { error?: { code?: string } };
    return { status: response.status, code: body.error?.code ?? null, retryAfter: response.headers.get('retry-after') };
  }

  /** `count` requests at once, alternating between the two instances. */
  const burst = (apiKey: string, count: number) =>
    Promise.all(Array.from({ length: count }, (_, index) => call(index % 2 === 0 ? a : b, apiKey)));
  const statusCount = (answers: Answer[], status: number) => answers.filter((answer) => answer.status === status).length;
  const fingerprint = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 16);

  it("a token's concurrency limit holds across instances: over it a 429 with Retry-After, nothing sent upstream", async () => {
    const key = `ok-token-${model}`;
    await channel(key);
    const token = await createRelayToken(a.ctx, userId, { maxConcurrency: 3 });
    const answers = await burst(token.apiKey, 12);
    expect(statusCount(answers, 200)).toBeGreaterThanOrEqual(3);
    expect(statusCount(answers, 200) + statusCount(answers, 429)).toBe(12);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((answer) => answer.code === 'token_concurrency_exceeded' && answer.retryAfter === '1')).toBe(true);
    expect(upstream.maxInFlight.get(key)).toBeLessThanOrEqual(3);
    expect(upstream.seen).toHaveLength(statusCount(answers, 200));
    // A refusal gives its hold back: nothing stays held against the user on either instance.
    for (const server of new Set([a, b])) for (const cached of server.relay.access.cachedUsers()) expect(cached.held).toBe(0);
    // Slots come back: the next burst is admitted again.
    expect(statusCount(await burst(token.apiKey, 3), 200)).toBe(3);
  });

  it('in queue mode the same burst waits its turn: every request is served, never more than the limit at once', async () => {
    await option('ConcurrencyQueueEnabled', 'true');
    await option('ConcurrencyQueueTimeoutSeconds', '20');
    const key = `ok-queue-${model}`;
    await channel(key);
    const token = await createRelayToken(a.ctx, userId, { maxConcurrency: 3 });
    const answers = await burst(token.apiKey, 12);
    expect(statusCount(answers, 200)).toBe(12);
    expect(upstream.maxInFlight.get(key)).toBe(3);
  });

  it('a channel at its concurrency limit is skipped, not failed: the rest goes to the next channel', async () => {
    const limited = `ok-limited-${model}`;
    const spare = `ok-spare-${model}`;
    const limitedId = await channel(limited, { priority: 10, setting: { max_concurrency: 2 } });
    await channel(spare, { priority: 0 });
    const token = await createRelayToken(a.ctx, userId);
    const answers = await burst(token.apiKey, 8);
    expect(statusCount(answers, 200)).toBe(8);
    expect(upstream.maxInFlight.get(limited)).toBe(2);
    expect(upstream.seen.filter((key) => key === spare).length).toBeGreaterThanOrEqual(4);
    // Not a failure: the channel is still enabled and takes traffic again.
    const row = await a.ctx.storage.db.selectFrom('channels').select(['status']).where('id', '=', limitedId).executeTakeFirstOrThrow();
    expect(row.status).toBe(1);
    upstream.reset();
    expect((await call(a, token.apiKey)).status).toBe(200);
    expect(upstream.seen).toEqual([limited]);
  });

  it('when every channel is at its limit the caller gets 429 channel_concurrency_exceeded; in queue mode it waits', async () => {
    const key = `ok-full-${model}`;
    await channel(key, { setting: { max_concurrency: 2 } });
    const token = await createRelayToken(a.ctx, userId);
    const answers = await burst(token.apiKey, 6);
    expect(statusCount(answers, 200)).toBeGreaterThanOrEqual(2);
    expect(
      answers
        .filter((answer) => answer.status === 429)
        .every((answer) => answer.code === 'channel_concurrency_exceeded' && answer.retryAfter === '1'),
    ).toBe(true);
    expect(statusCount(answers, 429)).toBeGreaterThan(0);
    expect(upstream.maxInFlight.get(key)).toBe(2);
    await option('ConcurrencyQueueEnabled', 'true');
    upstream.reset();
    const queued = await burst(token.apiKey, 6);
    expect(statusCount(queued, 200)).toBe(6);
    expect(upstream.maxInFlight.get(key)).toBe(2);
  });

  it("a channel's requests-per-minute limit counts across instances; over it the next channel serves", async () => {
    const limited = `ok-rpm-${model}`;
    const spare = `ok-rpm-spare-${model}`;
    await channel(limited, { priority: 10, setting: { rpm_limit: 3 } });
    await channel(spare, { priority: 0 });
    const token = await createRelayToken(a.ctx, userId);
    for (let index = 0; index < 6; index += 1) expect((await call(index % 2 === 0 ? a : b, token.apiKey)).status).toBe(200);
    expect(upstream.seen).toEqual([limited, limited, limited, spare, spare, spare]);
  });

  it('multi-key: a key failing with an auth error is disabled alone on every instance; polling uses the keys in turn; the last key takes the channel down', async () => {
    const good1 = `ok-k1-${model}`;
    const bad = `e401-k2-${model}`;
    const good2 = `ok-k3-${model}`;
    const id = await channel([good1, bad, good2].join('\n'), { setting: { multi_key_mode: 'polling' } });
    const token = await createRelayToken(a.ctx, userId);
    // In turn: k1, then k2 (fails and is disabled; the same channel is never retried within the request, so the caller gets the failure), k3.
    const first = [await call(a, token.apiKey), await call(a, token.apiKey), await call(a, token.apiKey)];
    expect(upstream.seen.slice(0, 2)).toEqual([good1, bad]);
    expect(first[0]!.status).toBe(200);
    expect(first[1]!.status).toBe(502);
    expect(first[2]!.status).toBe(200);
    await flushRelay(a.ctx);
    await expect
      .poll(
        async () => {
          const row = await a.ctx.storage.db
            .selectFrom('channels')
            .select(['status', 'other_info'])
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          return { status: row.status, disabled: Object.keys(JSON.parse(row.other_info || '{}').disabled_keys ?? {}) };
        },
        { timeout: 3000 },
      )
      .toEqual({ status: 1, disabled: [fingerprint(bad)] });
    if (b !== a) await b.relay.channels.rebuild();
    upstream.reset();
    const later = await burst(token.apiKey, 8);
    expect(statusCount(later, 200)).toBe(8);
    expect(new Set(upstream.seen)).toEqual(new Set([good1, good2]));
    expect(upstream.seen.filter((key) => key === good1).length).toBeGreaterThanOrEqual(3);
    expect(upstream.seen.filter((key) => key === good2).length).toBeGreaterThanOrEqual(3);
    // The other_info names a fingerprint, never the key.
    const row = await a.ctx.storage.db.selectFrom('channels').select(['other_info']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.other_info).not.toContain(bad);

    // Every key failing: the channel goes down as a whole.
    const allBad = await channel([`e401-x1-${model}`, `e401-x2-${model}`].join('\n'), { priority: 20 });
    await call(a, token.apiKey);
    await call(a, token.apiKey);
    await expect
      .poll(
        async () =>
          (await a.ctx.storage.db.selectFrom('channels').select(['status']).where('id', '=', allBad).executeTakeFirstOrThrow()).status,
        { timeout: 3000 },
      )
      .toBe(3);
  });

  it('per-key concurrency: each key carries at most its limit; a channel whose keys are all busy is skipped', async () => {
    const k1 = `ok-pk1-${model}`;
    const k2 = `ok-pk2-${model}`;
    await channel([k1, k2].join('\n'), { setting: { key_max_concurrency: 1 } });
    const token = await createRelayToken(a.ctx, userId);
    const answers = await burst(token.apiKey, 6);
    expect(upstream.maxInFlight.get(k1)).toBe(1);
    expect(upstream.maxInFlight.get(k2)).toBe(1);
    expect(statusCount(answers, 200)).toBeGreaterThanOrEqual(2);
    expect(statusCount(answers, 200) + statusCount(answers, 429)).toBe(6);
  });

  it('retry policy: statuses in RetryStatusCodes fail over, others are answered at once; connection errors per RetryOnConnectionError', async () => {
    const broken = `e500-${model}`;
    const limited = `r429-${model}`;
    const good = `ok-retry-${model}`;
    await channel(broken, { priority: 20 });
    await channel(limited, { priority: 10 });
    await channel(good, { priority: 0 });
    const token = await createRelayToken(a.ctx, userId);
    expect((await call(a, token.apiKey)).status).toBe(200);
    expect(upstream.seen).toEqual([broken, limited, good]);
    // Only 500 retries now: the 429 is the caller's answer, with its Retry-After.
    await option('RetryStatusCodes', '500');
    upstream.reset();
    const answer = await call(a, token.apiKey);
    expect(answer.status).toBe(429);
    expect(answer.retryAfter).toBe('2');
    expect(upstream.seen).toEqual([broken, limited]);
    // Nothing retries: the first failure is the answer.
    await option('RetryStatusCodes', '');
    upstream.reset();
    expect((await call(a, token.apiKey)).status).toBe(500);
    expect(upstream.seen).toEqual([broken]);

    // An unreachable upstream: retried by default, answered at once with RetryOnConnectionError off.
    await option('RetryStatusCodes', '401,403,408,429,500-503,505-523,525-599');
    const model2 = model;
    model = `lim-conn-${randomBytes(3).toString('hex')}`;
    await option('ModelRatio', JSON.stringify({ ...a.ctx.options.json<Record<string, number>>('ModelRatio'), [model]: 1 }));
    await createRelayChannel(a.ctx, { key: 'ok-dead', baseURL: 'http://127.0.0.1:1/v1', models: [model], priority: 5, autoBan: false });
    await channel(`ok-alive-${model}`, { priority: 0 });
    upstream.reset();
    expect((await call(a, token.apiKey)).status).toBe(200);
    await option('RetryOnConnectionError', 'false');
    expect((await call(a, token.apiKey)).status).toBe(502);
    await option('RetryOnConnectionError', 'true');
    model = model2;
  });

  it('circuit breaker: after consecutive failures a channel cools down on every instance, then gets one trial; Retry-After cools at once; all cooling is a 503', async () => {
    await option('ChannelCooldownFailures', '2');
    await option('ChannelCooldownSeconds', '1');
    const broken = `e500-cool-${model}`;
    const good = `ok-cool-${model}`;
    await channel(broken, { priority: 10 });
    await channel(good, { priority: 0 });
    const token = await createRelayToken(a.ctx, userId);
    for (let index = 0; index < 2; index += 1) expect((await call(a, token.apiKey)).status).toBe(200);
    expect(upstream.seen).toEqual([broken, good, broken, good]);
    upstream.reset();
    // Open: neither instance sends to it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await call(a, token.apiKey)).status).toBe(200);
    expect((await call(b, token.apiKey)).status).toBe(200);
    expect(upstream.seen).toEqual([good, good]);
    // After the cooldown: one trial, which fails and opens it again at once.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    upstream.reset();
    expect((await call(a, token.apiKey)).status).toBe(200);
    expect((await call(a, token.apiKey)).status).toBe(200);
    expect(upstream.seen).toEqual([broken, good, good]);

    // A 429 with Retry-After: 2 cools its channel at once (threshold not reached).
    const model2 = `lim-ra-${randomBytes(3).toString('hex')}`;
    model = model2;
    await option('ModelRatio', JSON.stringify({ ...a.ctx.options.json<Record<string, number>>('ModelRatio'), [model]: 1 }));
    await option('ChannelCooldownFailures', '5');
    await channel(`r429-cool-${model}`);
    upstream.reset();
    expect((await call(a, token.apiKey)).status).toBe(429);
    // Every channel for the model is cooling: a 503 saying when to come back, nothing sent upstream.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cooling = await call(b, token.apiKey);
    expect(cooling.status).toBe(503);
    expect(cooling.code).toBe('channel_cooling_down');
    expect(Number(cooling.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(cooling.retryAfter)).toBeLessThanOrEqual(2);
    expect(upstream.seen).toHaveLength(1);
  });

  it('the openai SDK sees a token over its limit as a retryable 429 and gets through after its retries', async () => {
    const key = `ok-sdk-${model}`;
    await channel(key);
    const token = await createRelayToken(a.ctx, userId, { maxConcurrency: 1 });
    const client = new OpenAI({ apiKey: token.apiKey, baseURL: `${a.url}/v1`, maxRetries: 5 });
    const results = await Promise.all(
      [0, 1, 2].map(() => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] })),
    );
    expect(results.map((result) => result.choices[0]!.message.content)).toEqual(['ok', 'ok', 'ok']);
    expect(upstream.maxInFlight.get(key)).toBe(1);
  });
});
