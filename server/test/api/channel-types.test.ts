import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startFixtureUpstream, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';

/** The spec's channel types that have an adapter, with what the console must render for each. */
const expectedTypes: Record<
  number,
  {
    slug: string;
    extra?: Array<'other' | 'base_url' | 'openai_organization'>;
    endpoints: string[];
    hasBalance?: boolean;
    validatesKey?: boolean;
    keyHint?: RegExp;
    baseURL?: string;
  }
> = {
  1: {
    slug: 'openai',
    extra: ['openai_organization'],
    endpoints: ['chat', 'embeddings', 'rerank'],
    hasBalance: true,
    baseURL: 'https://api.openai.com',
  },
  2: { slug: 'midjourney', extra: ['base_url'], endpoints: [], validatesKey: true },
  3: { slug: 'azure', extra: ['base_url', 'other'], endpoints: ['chat', 'embeddings'], validatesKey: true },
  4: { slug: 'ollama', extra: ['base_url'], endpoints: ['chat', 'completions', 'embeddings'], baseURL: 'http://localhost:11434' },
  5: { slug: 'midjourney-plus', extra: ['base_url'], endpoints: [], validatesKey: true },
  8: { slug: 'custom', extra: ['base_url'], endpoints: ['chat'], hasBalance: true },
  11: { slug: 'palm', endpoints: ['chat'], baseURL: 'https://generativelanguage.googleapis.com' },
  14: { slug: 'anthropic', endpoints: ['chat'], keyHint: /x-api-key/, baseURL: 'https://api.anthropic.com' },
  15: {
    slug: 'baidu',
    endpoints: ['chat', 'embeddings'],
    validatesKey: true,
    keyHint: /APIKey\|SecretKey/,
    baseURL: 'https://aip.baidubce.com',
  },
  16: { slug: 'zhipu', endpoints: ['chat'], validatesKey: true, keyHint: /id\.secret/, baseURL: 'https://open.bigmodel.cn' },
  17: { slug: 'ali', endpoints: ['chat', 'embeddings'] },
  18: {
    slug: 'spark',
    extra: ['other'],
    endpoints: ['chat'],
    validatesKey: true,
    keyHint: /APPID\|APISecret\|APIKey/,
    baseURL: 'wss://spark-api.xf-yun.com',
  },
  19: { slug: 'ai360', endpoints: ['chat'] },
  20: { slug: 'openrouter', endpoints: ['chat'], hasBalance: true, baseURL: 'https://openrouter.ai/api' },
  21: { slug: 'aiproxy-library', extra: ['other'], endpoints: ['chat'], validatesKey: true, baseURL: 'https://api.aiproxy.io' },
  22: { slug: 'fastgpt', endpoints: ['chat'], baseURL: 'https://fastgpt.run/api/openapi' },
  23: {
    slug: 'hunyuan',
    extra: ['other'],
    endpoints: ['chat', 'embeddings'],
    validatesKey: true,
    keyHint: /SecretId\|SecretKey/,
    baseURL: 'https://hunyuan.tencentcloudapi.com',
  },
  24: { slug: 'gemini', endpoints: ['chat', 'embeddings'] },
  25: { slug: 'moonshot', endpoints: ['chat'], hasBalance: true },
  26: { slug: 'zhipu-v4', endpoints: ['chat'] },
  31: { slug: 'yi', endpoints: ['chat'] },
  33: { slug: 'aws-bedrock', endpoints: ['chat'], validatesKey: true, keyHint: /Region/ },
  34: { slug: 'cohere', endpoints: ['chat', 'rerank'], validatesKey: true },
  35: { slug: 'minimax', extra: ['other'], endpoints: ['chat', 'embeddings'], validatesKey: true, baseURL: 'https://api.minimax.chat' },
  36: { slug: 'suno', extra: ['base_url'], endpoints: [], validatesKey: true },
  37: { slug: 'dify', extra: ['other'], endpoints: ['chat'], validatesKey: true },
  38: { slug: 'jina', endpoints: ['embeddings', 'rerank'], validatesKey: true },
  39: { slug: 'cloudflare', extra: ['other'], endpoints: ['chat', 'embeddings'], validatesKey: true },
  40: { slug: 'siliconcloud', endpoints: ['chat'], hasBalance: true, baseURL: 'https://api.siliconflow.cn' },
  41: { slug: 'vertex', extra: ['other'], endpoints: ['chat'], validatesKey: true, keyHint: /JSON/ },
  42: { slug: 'mistral', endpoints: ['chat'] },
  43: { slug: 'deepseek', endpoints: ['chat'], hasBalance: true, baseURL: 'https://api.deepseek.com' },
  44: { slug: 'm3e', endpoints: ['embeddings'] },
  45: { slug: 'volcengine', endpoints: ['chat'] },
  46: { slug: 'baidu-v2', endpoints: ['chat', 'embeddings', 'rerank'], baseURL: 'https://qianfan.baidubce.com' },
  47: { slug: 'xinference', extra: ['base_url'], endpoints: ['chat', 'rerank'] },
  48: { slug: 'xai', endpoints: ['chat'] },
  50: { slug: 'kling', endpoints: [], validatesKey: true, keyHint: /AccessKey\|SecretKey/, baseURL: 'https://api-singapore.klingai.com' },
};

describe('GET /api/channel/types', () => {
  let server: TestServer;
  let admin: ApiClient;
  let user: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ kind: 'sqlite' });
    admin = (await signedInClient(server, { username: 'admin', role: 10 })).client;
    user = (await signedInClient(server, { username: 'alice', role: 1 })).client;
  });
  afterAll(async () => server?.stop());

  it('lists every provider type with the metadata the channel form renders, sorted by type', async () => {
    const res = await admin.get('/api/channel/types');
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(true);
    const types = res.body.data as Array<Record<string, unknown> & { type: number }>;
    expect(types.map((item) => item.type)).toEqual([...types.map((item) => item.type)].sort((a, b) => a - b));
    const openai = types.find((item) => item.type === 1);
    expect(openai).toMatchObject({
      slug: 'openai',
      displayName: expect.any(String),
      keyHint: expect.any(String),
      defaultBaseURL: 'https://api.openai.com',
      hasBalance: true,
      extraFields: [{ name: 'openai_organization', label: 'Organization', placeholder: 'org-...' }],
    });
    expect(openai?.endpoints).toContain('chat');
    const custom = types.find((item) => item.type === 8);
    expect(custom?.extraFields).toEqual([expect.objectContaining({ name: 'base_url', required: true })]);
    for (const item of types) {
      expect(Array.isArray(item.defaultModels)).toBe(true);
      expect(typeof item.keyHint).toBe('string');
    }
  });

  it('lists every spec type that has an adapter with its extra fields, key hint, base URL, endpoints, balance and validation', async () => {
    const types = (await admin.get('/api/channel/types')).body.data as Array<Record<string, any>>;
    expect(types.map((item) => item.type)).toEqual(Object.keys(expectedTypes).map(Number));
    for (const [type, expected] of Object.entries(expectedTypes)) {
      const item = types.find((entry) => entry.type === Number(type))!;
      expect(item.slug, type).toBe(expected.slug);
      expect(
        item.extraFields.map((field: { name: string }) => field.name),
        type,
      ).toEqual(expected.extra ?? []);
      for (const field of item.extraFields) expect(field.label, type).toEqual(expect.any(String));
      expect(item.endpoints, type).toEqual(expect.arrayContaining(expected.endpoints));
      expect(item.hasBalance, type).toBe(expected.hasBalance ?? false);
      expect(item.validatesKey, type).toBe(expected.validatesKey ?? false);
      expect(item.keyHint.length, type).toBeGreaterThan(0);
      if (expected.keyHint) expect(item.keyHint, type).toMatch(expected.keyHint);
      if (expected.baseURL) expect(item.defaultBaseURL, type).toBe(expected.baseURL);
      expect(typeof item.hasModelList, type).toBe('boolean');
    }
    const byType = (type: number) => types.find((entry) => entry.type === type)!;
    expect(byType(3).extraFields[1]).toMatchObject({ name: 'other', label: expect.stringContaining('api-version') });
    expect(byType(41).extraFields[0].label).toContain('Region');
    expect(byType(39).extraFields[0]).toMatchObject({ label: 'Account ID', required: true });
    expect(byType(37).extraFields[0].label).toContain('agent');
    expect(byType(33).keyHint).toContain('AccessKey|SecretAccessKey|Region');
    expect(byType(24).defaultModels).toContain('gemini-2.5-flash');
  });

  it("reads balances from each provider's balance endpoint under the channel base URL", async () => {
    const upstream: FixtureUpstream = await startFixtureUpstream();
    try {
      const cases: Array<{ type: number; reply: unknown; path: string; balance: number }> = [
        { type: 20, reply: { data: { total_credits: 25.5, total_usage: 5.25 } }, path: '/v1/credits', balance: 20.25 },
        { type: 40, reply: { code: 20000, data: { totalBalance: '12.34' } }, path: '/v1/user/info', balance: 12.34 },
        {
          type: 43,
          reply: { is_available: true, balance_infos: [{ currency: 'USD', total_balance: '7.50' }] },
          path: '/user/balance',
          balance: 7.5,
        },
      ];
      for (const item of cases) {
        const id = await createRelayChannel(server.ctx, { type: item.type, key: `bal-${item.type}`, baseURL: upstream.url, models: ['m'] });
        upstream.reply({ status: 200, contentType: 'application/json', body: JSON.stringify(item.reply) });
        const res = await admin.get(`/api/channel/update_balance/${id}`);
        expect(res.body, String(item.type)).toMatchObject({ success: true, balance: item.balance });
        const sent = upstream.requests.at(-1)!;
        expect(sent).toMatchObject({ method: 'GET', url: item.path });
        expect(sent.headers.authorization).toBe(`Bearer bal-${item.type}`);
        const row = await server.ctx.storage.db.selectFrom('channels').select('balance').where('id', '=', id).executeTakeFirstOrThrow();
        expect(row.balance).toBe(item.balance);
      }
      const moonshot = await createRelayChannel(server.ctx, { type: 25, key: 'bal-25', baseURL: `${upstream.url}/v1`, models: ['m'] });
      upstream.reply({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ code: 0, data: { available_balance: 73, voucher_balance: 0, cash_balance: 73 }, status: true }),
      });
      const res = await admin.get(`/api/channel/update_balance/${moonshot}`);
      expect(res.body.success).toBe(true);
      expect(res.body.balance).toBeGreaterThan(0);
      expect(upstream.requests.at(-1)!.url).toBe('/v1/users/me/balance');
      upstream.reply({ status: 401, contentType: 'application/json', body: '{"error":"bad key"}' });
      const failed = await admin.get(`/api/channel/update_balance/${moonshot}`);
      expect(failed.body).toMatchObject({ success: false, message: expect.stringContaining('401') });
      const unsupported = await createRelayChannel(server.ctx, { type: 14, key: 'k', baseURL: upstream.url, models: ['m'] });
      expect((await admin.get(`/api/channel/update_balance/${unsupported}`)).body.success).toBe(false);
    } finally {
      await upstream.close();
    }
  });

  it('is for admins only and is not shadowed by /api/channel/:id', async () => {
    const res = await user.get('/api/channel/types');
    expect(res.body.success).toBe(false);
    expect([200, 401, 403]).toContain(res.status);
  });
});
