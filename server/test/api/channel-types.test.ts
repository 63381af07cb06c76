import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/api-client.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

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
      slug: 'openai', displayName: expect.any(String), keyHint: expect.any(String), defaultBaseURL: 'https://api.openai.com',
      hasBalance: true, extraFields: [{ name: 'openai_organization', label: 'Organization', placeholder: 'org-...' }],
    });
    expect(openai?.endpoints).toContain('chat');
    const custom = types.find((item) => item.type === 8);
    expect(custom?.extraFields).toEqual([expect.objectContaining({ name: 'base_url', required: true })]);
    for (const item of types) {
      expect(Array.isArray(item.defaultModels)).toBe(true);
      expect(typeof item.keyHint).toBe('string');
    }
  });

  it('is for admins only and is not shadowed by /api/channel/:id', async () => {
    const res = await user.get('/api/channel/types');
    expect(res.body.success).toBe(false);
    expect([200, 401, 403]).toContain(res.status);
  });
});
