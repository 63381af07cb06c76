import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * A model with neither price nor ratio, where it may be used (self-use mode), is billed per token at
 * UnsetModelRatio (new-api's default ratio, 37.5) instead of 0, so its usage shows in the logs and
 * the dashboard; the ratio is a setting.
 */
describe('unpriced models in self-use mode', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let userId: number;
  let apiKey: string;

  const chat = async (model: string, stream = false) => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hello there' }] }),
    });
    return { status: res.status, text: await res.text() };
  };
  const lastLog = async () => {
    await flushRelay(server.ctx);
    return server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  };

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['my-local-model', 'gpt-4o-mini'] });
    userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    apiKey = (await createRelayToken(server.ctx, userId)).apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
  });

  it('refuses an unpriced model outside self-use mode', async () => {
    const refused = await chat('my-local-model');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('model_price_error');
  });

  it('bills it at 37.5 by default in self-use mode, with the ratio in the log', async () => {
    expect(server.ctx.options.number('UnsetModelRatio')).toBe(37.5);
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    const before = Number(
      (await server.ctx.storage.db.selectFrom('users').select('used_quota').where('id', '=', userId).executeTakeFirstOrThrow()).used_quota,
    );
    const answered = await chat('my-local-model');
    expect(answered.status, answered.text).toBe(200);
    const log = await lastLog();
    // The mock's usage: prompt 7 + ceil(11 / 4) = 10, completion 6 (its six words); completion ratio 1.
    expect({ prompt: log.prompt_tokens, completion: log.completion_tokens }).toEqual({ prompt: 10, completion: 6 });
    expect(Number(log.quota)).toBe(Math.round(37.5 * (10 + 6)));
    expect(JSON.parse(log.other)).toMatchObject({ model_ratio: 37.5, completion_ratio: 1, model_price: -1 });
    const after = Number(
      (await server.ctx.storage.db.selectFrom('users').select('used_quota').where('id', '=', userId).executeTakeFirstOrThrow()).used_quota,
    );
    expect(after - before).toBe(600);
  });

  it('follows the UnsetModelRatio setting, streams included, and leaves priced models alone', async () => {
    await setOption(server.ctx, 'UnsetModelRatio', '2');
    const streamed = await chat('my-local-model', true);
    expect(streamed.status).toBe(200);
    const log = await lastLog();
    expect(JSON.parse(log.other).model_ratio).toBe(2);
    expect(Number(log.quota)).toBe(2 * (log.prompt_tokens + log.completion_tokens));

    // 0 bills nothing, as before this setting existed.
    await setOption(server.ctx, 'UnsetModelRatio', '0');
    expect((await chat('my-local-model')).status).toBe(200);
    expect(Number((await lastLog()).quota)).toBe(0);

    const priced = await chat('gpt-4o-mini');
    expect(priced.status).toBe(200);
    expect(JSON.parse((await lastLog()).other).model_ratio).toBe(
      server.ctx.options.json<Record<string, number>>('ModelRatio')['gpt-4o-mini'],
    );
    await setOption(server.ctx, 'UnsetModelRatio', '37.5');
  });

  it('validates the setting: a number from 0 up', async () => {
    await expect(setOption(server.ctx, 'UnsetModelRatio', '-1')).rejects.toThrow();
    await expect(setOption(server.ctx, 'UnsetModelRatio', 'lots')).rejects.toThrow();
  });
});
