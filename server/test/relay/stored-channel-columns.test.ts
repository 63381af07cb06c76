import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startSteadyRelay, type SteadyRelay } from '../helpers/steady-relay.js';

/** What a migrated or hand-edited `channels` row may hold where the channel form would refuse it. */
const oddValues = [
  '',
  'null',
  '"x"',
  '5',
  'true',
  '[]',
  '[null]',
  '{}',
  '{"gpt-c":null}',
  '{"gpt-c":5}',
  '{"gpt-c":{}}',
  '{"gpt-c":"gpt-c"}',
  '{"__proto__":{"x":1}}',
  '{"a":',
  '\u0000',
  '{"500":"abc"}',
  '{"stream":"x","model":null}',
  '{"headers":null}',
  '{"max_concurrency":"x"}',
  '{"rpm_limit":1e308}',
  '{"proxy":"http://"}',
];
const columns = [
  'model_mapping',
  'status_code_mapping',
  'setting',
  'param_override',
  'other_info',
  'other',
  'models',
  'group',
  'base_url',
  'key',
  'tag',
  'openai_organization',
  'test_model',
] as const;

/**
 * The channel form validates what it saves, but rows migrated from new-api or edited by hand are read
 * as they are. Whatever a column holds, the relay and the console answer without a 500: a channel
 * whose base URL is not a URL fails as that channel (502, and another channel serves the request
 * when RetryTimes allows), never as the gateway.
 */
describe('channel rows with odd stored columns', () => {
  let relay: SteadyRelay;

  beforeAll(async () => {
    relay = await startSteadyRelay();
    await setOption(relay.server.ctx, 'ModelRatio', JSON.stringify({ 'gpt-c': 1, 'gpt-failover': 1 }));
  });
  afterAll(() => relay?.stop());

  const chat = (model: string, stream: boolean) =>
    fetch(`${relay.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${relay.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(10_000),
    });
  const rebuild = () => (relay.server as unknown as { relay: { channels: { rebuild(): Promise<void> } } }).relay.channels.rebuild();

  it('answers calls, the channel pages and the channel test without a 500, whatever a column holds', { timeout: 120_000 }, async () => {
    const id = await createRelayChannel(relay.server.ctx, {
      type: 1,
      key: 'k',
      baseURL: relay.upstream.url,
      models: ['gpt-c'],
      autoBan: false,
    });
    const original = await relay.server.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const wrong: string[] = [];
    try {
      for (const column of columns) {
        for (const value of oddValues) {
          const what = `${column}=${JSON.stringify(value)}`;
          await relay.server.ctx.storage.db
            .updateTable('channels')
            .set({ [column]: value } as never)
            .where('id', '=', id)
            .execute();
          await rebuild();
          for (const stream of [false, true]) {
            const res = await chat('gpt-c', stream);
            await res.text();
            if (res.status >= 500 && res.status !== 502 && res.status !== 503) wrong.push(`chat (stream ${stream}) ${what}: ${res.status}`);
          }
          for (const path of [
            '/api/channel/?p=1',
            `/api/channel/${id}`,
            '/api/channel/models',
            '/api/pricing',
            '/api/channel/search?keyword=c',
            `/api/channel/test/${id}`,
          ]) {
            const res = await relay.root.client.get(path);
            if (res.status >= 500) wrong.push(`${path} ${what}: ${res.status}`);
          }
          await relay.server.ctx.storage.db
            .updateTable('channels')
            .set({ [column]: (original as Record<string, unknown>)[column] } as never)
            .where('id', '=', id)
            .execute();
        }
      }
    } finally {
      await relay.server.ctx.storage.db.updateTable('channels').set({ status: 2 }).where('id', '=', id).execute();
      await rebuild();
    }
    expect(wrong).toEqual([]);
  });

  it('a channel whose base URL is not a URL fails as that channel: another one serves the call', async () => {
    await setOption(relay.server.ctx, 'RetryTimes', '1');
    try {
      await createRelayChannel(relay.server.ctx, {
        type: 1,
        key: 'k',
        baseURL: 'not a url',
        models: ['gpt-failover'],
        autoBan: false,
        priority: 10,
      });
      await createRelayChannel(relay.server.ctx, {
        type: 1,
        key: 'k',
        baseURL: relay.upstream.url,
        models: ['gpt-failover'],
        autoBan: false,
        priority: 0,
      });
      for (const stream of [false, true]) {
        const res = await chat('gpt-failover', stream);
        expect(res.status, `stream ${stream}`).toBe(200);
        expect(await res.text()).toContain(stream ? '"llo"' : 'hello');
      }
    } finally {
      await setOption(relay.server.ctx, 'RetryTimes', '0');
    }
  });
});
