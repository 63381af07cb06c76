import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { internalAddress, startHostileUpstream, type HostileUpstream } from '../helpers/hostile-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Chaos: an upstream that echoes the channel key (and internal addresses) never gets it to the caller. */
describe('chaos: an upstream error that echoes the channel key', () => {
  let server: TestServer;
  let upstream: HostileUpstream;
  let client: OpenAI;
  const secret = 'Chaos9RkT2vQ5mW8xZ3bN7pL';

  beforeAll(async () => {
    upstream = await startHostileUpstream();
    server = await startTestServer();
    await setOption(server.ctx, 'RetryTimes', '2');
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), 'chaos-echo': 1 }),
    );
    // Every channel of the model fails, each with its own echoed key: the failover ends on one of them.
    for (const status of ['401', '403', '429', '500']) {
      await createRelayChannel(server.ctx, {
        key: `sk-proj-echo${status}-${secret}`,
        baseURL: upstream.url,
        models: ['chaos-echo'],
        autoBan: false,
      });
    }
    await createRelayChannel(server.ctx, {
      key: `sk-proj-stream-${secret}`,
      baseURL: upstream.url,
      models: ['chaos-echo-stream'],
      autoBan: false,
    });
    const userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    client = new OpenAI({ apiKey: (await createRelayToken(server.ctx, userId)).apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server.stop();
    await upstream.close();
  });

  it('no key, key fragment or internal address reaches the caller, streamed or not, over 40 concurrent calls', async () => {
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelRatio'), 'chaos-echo-stream': 1 }),
    );
    const seen = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const model = index % 4 === 0 ? 'chaos-echo-stream' : 'chaos-echo';
        try {
          const answer = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] });
          let text = '';
          for await (const chunk of answer) text += JSON.stringify(chunk);
          return text;
        } catch (error) {
          const apiError = error as InstanceType<typeof OpenAI.APIError>;
          expect(apiError).not.toBeInstanceOf(OpenAI.AuthenticationError);
          return `${apiError.status} ${JSON.stringify(apiError.error ?? null)} ${apiError.message}`;
        }
      }),
    );
    for (const text of seen) {
      expect(text).not.toContain(secret.slice(0, 10));
      expect(text).not.toContain('sk-proj');
      expect(text).not.toContain(internalAddress.split(':')[0]);
      expect(text).not.toContain('corp.internal');
      expect(text).not.toContain('invalid_api_key');
    }
  });
});
