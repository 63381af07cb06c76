import { channelTypeNames } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterForType } from '../../src/relay/providers/registry.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Every spec type has an adapter; a row imported from a newer new-api can hold one without (49: its Coze). */
const typeWithoutAdapter =
  Object.keys(channelTypeNames)
    .map(Number)
    .find((type) => adapterForType(type) === null) ?? 49;

type Entry = {
  model_name: string;
  is_priced: boolean;
  is_available: boolean;
  model_ratio: number | null;
  model_price: number | null;
  quota_type: number;
  enable_groups: string[];
};

/** GET /api/pricing: a model is available only when priced and served by an enabled channel in one of the viewer's groups. */
describe('pricing list: priced and available flags per viewer', () => {
  let server: TestServer;
  const url = 'http://127.0.0.1:9';

  beforeAll(async () => {
    server = await startTestServer();
    const { ctx } = server;
    await setOption(ctx, 'SelfUseModeEnabled', 'false');
    await setOption(ctx, 'ModelRatio', JSON.stringify({ 'priced-ratio': 2.5, 'vip-only': 1, 'disabled-only': 1, 'legacy-only': 1 }));
    await setOption(ctx, 'ModelPrice', JSON.stringify({ 'priced-call': 0.05 }));
    await setOption(ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组' }));
    await createRelayChannel(ctx, { key: 'k1', baseURL: url, models: ['priced-ratio', 'priced-call', 'unpriced-model'] });
    await createRelayChannel(ctx, { key: 'k2', baseURL: url, models: ['vip-only'], groups: ['vip'] });
    await createRelayChannel(ctx, { key: 'k3', baseURL: url, models: ['disabled-only'], status: 2 });
    // A row of a type without an adapter left enabled by an earlier version: the relay cannot serve it.
    await createRelayChannel(ctx, {
      type: typeWithoutAdapter,
      key: 'k4',
      baseURL: url,
      models: ['legacy-only', 'priced-ratio'],
      groups: ['default', 'legacy'],
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  const pricingAs = async (client = server.client()) => {
    const res = await client.get('/api/pricing');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    return new Map((res.body.data as Entry[]).map((entry) => [entry.model_name, entry]));
  };

  it('anonymous viewers: judged by the default group', async () => {
    const models = await pricingAs();
    expect(models.get('priced-ratio')).toMatchObject({
      is_priced: true,
      is_available: true,
      quota_type: 0,
      model_ratio: 2.5,
      enable_groups: ['default'],
    });
    expect(models.get('priced-call')).toMatchObject({ is_priced: true, is_available: true, quota_type: 1, model_price: 0.05 });
    expect(models.get('vip-only')).toMatchObject({ is_priced: true, is_available: false, enable_groups: ['vip'] });
    // Only a disabled channel serves it: not offered at all.
    expect(models.has('disabled-only')).toBe(false);
    // Served only by a channel of a type without an adapter: not offered, and its group is not listed.
    expect(models.has('legacy-only')).toBe(false);
  });

  it('an unpriced model is flagged, never given a price of 0, and not available', async () => {
    const unpriced = (await pricingAs()).get('unpriced-model')!;
    expect(unpriced).toMatchObject({ is_priced: false, is_available: false, model_ratio: null, model_price: null, completion_ratio: null });
  });

  it('signed-in viewers: their own group and UserUsableGroups decide', async () => {
    const plain = (await signedInClient(server, { username: 'plain', group: 'default' })).client;
    expect((await pricingAs(plain)).get('vip-only')).toMatchObject({ is_available: false });
    const vip = (await signedInClient(server, { username: 'vipper', group: 'vip' })).client;
    const asVip = await pricingAs(vip);
    expect(asVip.get('vip-only')).toMatchObject({ is_available: true });
    expect(asVip.get('priced-ratio')).toMatchObject({ is_available: true });
    expect(asVip.get('unpriced-model')).toMatchObject({ is_available: false });

    await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组' }));
    expect((await pricingAs(plain)).get('vip-only')).toMatchObject({ is_available: true });
    // Anonymous viewers stay on the default group.
    expect((await pricingAs()).get('vip-only')).toMatchObject({ is_available: false });
    await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组' }));
  });

  it('broken credentials are read as an anonymous viewer, not an error', async () => {
    const stale = (await signedInClient(server, { username: 'stale', group: 'vip' })).client;
    stale.userId = 999_999;
    expect((await pricingAs(stale)).get('vip-only')).toMatchObject({ is_available: false });
  });

  it('in self-use mode an unpriced model served in the group is available, still flagged unpriced', async () => {
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    expect((await pricingAs()).get('unpriced-model')).toMatchObject({ is_priced: false, is_available: true, model_price: null });
    await setOption(server.ctx, 'SelfUseModeEnabled', 'false');
  });

  it("shows the viewer's auto group order and special ratios (AutoGroups, GroupGroupRatio)", async () => {
    await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组', vip: 'vip分组', auto: '自动选择' }));
    await setOption(server.ctx, 'AutoGroups', JSON.stringify(['vip', 'svip', 'default']));
    await setOption(server.ctx, 'GroupRatio', JSON.stringify({ default: 1, vip: 2, svip: 3 }));
    await setOption(server.ctx, 'GroupGroupRatio', JSON.stringify({ vip: { default: 0.5 } }));
    try {
      const vip = (await signedInClient(server, { username: 'vip-auto', group: 'vip' })).client;
      const res = await vip.get('/api/pricing');
      // svip is not one of the viewer's usable groups: not in their auto order.
      expect(res.body.auto_groups).toEqual(['vip', 'default']);
      expect(res.body.group_ratio).toMatchObject({ default: 0.5, vip: 2 });
      expect(res.body.special_group_ratio).toEqual({ default: 0.5 });
      expect(res.body.usable_group).toMatchObject({ auto: '自动选择' });
      const models = new Map((res.body.data as Entry[]).map((entry) => [entry.model_name, entry]));
      expect(models.get('vip-only')!.enable_groups).toEqual(['vip', 'auto']);
      // Anonymous viewers get no special ratio.
      const anonymous = await server.client().get('/api/pricing');
      expect(anonymous.body.group_ratio).toMatchObject({ default: 1 });
      expect(anonymous.body.special_group_ratio).toEqual({});
      expect(anonymous.body.auto_groups).toEqual([]);
    } finally {
      await setOption(server.ctx, 'UserUsableGroups', JSON.stringify({ default: '默认分组' }));
      await setOption(server.ctx, 'GroupGroupRatio', '{}');
    }
  });
});
