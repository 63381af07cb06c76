import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionRegistry, type OptionKey } from '../../src/options/registry.js';
import { createRelayChannel, flushRelay } from '../helpers/relay-fixtures.js';
import { startSteadyRelay, type SteadyRelay } from '../helpers/steady-relay.js';

/** Every option whose value is a JSON table or list. */
const jsonOptions = (Object.keys(optionRegistry) as OptionKey[]).filter((key) => {
  try {
    const value = JSON.parse(optionRegistry[key].default) as unknown;
    return value !== null && typeof value === 'object';
  } catch {
    return false;
  }
});

/**
 * PUT /api/option/ refuses a JSON option of the wrong kind, but a database migrated from new-api or
 * edited by hand may hold one (`null` where the ratio table belongs). Such a value reads as the
 * option's default: the relay and the console go on (a stored `null` ModelRatio once made every
 * relayed call and the pricing page a 500).
 */
describe('JSON options stored with the wrong kind of value', () => {
  let relay: SteadyRelay;

  beforeAll(async () => {
    relay = await startSteadyRelay();
    // gpt-4o-mini has a default ratio: with the default table in force it is priced.
    await createRelayChannel(relay.server.ctx, { type: 1, key: 'k', baseURL: relay.upstream.url, models: ['gpt-4o-mini'] });
  });
  afterAll(() => relay?.stop());

  async function store(key: string, value: string | null) {
    await relay.server.ctx.storage.db.deleteFrom('options').where('key', '=', key).execute();
    if (value !== null) await relay.server.ctx.storage.db.insertInto('options').values({ key, value }).execute();
    await relay.server.ctx.options.load();
  }
  const chat = (stream: boolean) =>
    fetch(`${relay.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${relay.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('finds the JSON options', () => {
    expect(jsonOptions).toEqual(
      expect.arrayContaining([
        'ModelRatio',
        'ModelPrice',
        'CompletionRatio',
        'GroupRatio',
        'UserUsableGroups',
        'GroupGroupRatio',
        'AutoGroups',
        'Chats',
      ]),
    );
  });

  it.each(jsonOptions)('%s: null, a string, a number or the other container reads as the default', async (key) => {
    const isList = Array.isArray(JSON.parse(optionRegistry[key].default));
    const defaultValue = relay.server.ctx.options.json<unknown>(key);
    try {
      for (const value of ['null', '"text"', '5', 'true', isList ? '{}' : '[]']) {
        await store(key, value);
        expect(relay.server.ctx.options.json<unknown>(key), value).toEqual(defaultValue);
        for (const res of [await chat(false), await chat(true)]) expect(res.status, `${key}=${value}`).toBe(200);
        for (const path of ['/api/pricing', '/api/status', '/api/user/self/groups', '/api/user/models', '/api/option/']) {
          const res = await relay.root.client.get(path);
          expect(res.status, `${key}=${value} ${path}`).toBe(200);
        }
      }
    } finally {
      await store(key, null);
    }
  });

  it('a stored price or ratio that is not a non-negative number never serves a model for free', async () => {
    const lastBill = async () => {
      await flushRelay(relay.server.ctx);
      const row = await relay.server.ctx.storage.db
        .selectFrom('logs')
        .select(['quota', 'content'])
        .where('type', '=', 2)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      return { quota: Number(row.quota), content: row.content };
    };
    try {
      // A malformed ratio is no ratio: the model is unpriced (refused), not served at ratio 0.
      for (const ratio of ['"2"', 'null', '-1', '{}']) {
        await store('ModelRatio', `{"gpt-4o-mini":${ratio}}`);
        const res = await chat(false);
        expect(res.status, ratio).toBe(400);
        expect(((await res.json()) as any).error.code).toBe('model_price_error');
      }
      // A malformed per-call price is no price: the ratio bills the call.
      await store('ModelRatio', '{"gpt-4o-mini":1}');
      for (const price of ['-5', '"0.1"', 'null']) {
        await store('ModelPrice', `{"gpt-4o-mini":${price}}`);
        expect((await chat(false)).status, price).toBe(200);
        const bill = await lastBill();
        expect(bill.quota, price).toBeGreaterThan(0);
        expect(bill.content, price).toContain('模型倍率 1');
      }
      await store('ModelPrice', null);
      // A negative group or completion ratio reads as 1.
      await store('GroupRatio', '{"default":-1}');
      await store('CompletionRatio', '{"gpt-4o-mini":-3}');
      expect((await chat(false)).status).toBe(200);
      const bill = await lastBill();
      expect(bill.quota).toBeGreaterThan(0);
      expect(bill.content).toContain('补全倍率 1，分组倍率 1');
    } finally {
      for (const key of ['ModelRatio', 'ModelPrice', 'GroupRatio', 'CompletionRatio']) await store(key, null);
    }
  });
});
