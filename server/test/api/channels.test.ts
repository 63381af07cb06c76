import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyTypeDefaults } from '../../src/api/channels/channel-values.js';
import type { ApiClient } from '../helpers/api-client.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const base = { name: 'primary', type: 1, key: 'sk-upstream-1', models: ['gpt-4o', 'gpt-4o-mini'], groups: ['default', 'vip'] };

describe.each(storageKinds())('channel management on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let root: ApiClient;
  let user: ApiClient;
  const published: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = (await signedInClient(server, { username: 'admin', role: 10 })).client;
    root = (await signedInClient(server, { username: 'root', role: 100 })).client;
    user = (await signedInClient(server, { username: 'alice', role: 1 })).client;
    await server.ctx.bus.subscribe('channels', () => published.push('channels'));
  });
  afterAll(async () => server?.stop());

  const abilitiesOf = (channelId: number) =>
    server.ctx.storage.db
      .selectFrom('abilities')
      .selectAll()
      .where('channel_id', '=', channelId)
      .orderBy('group')
      .orderBy('model')
      .execute();

  /** The stored key, through the root's explicit reveal (the only route that answers it). */
  async function keyOf(id: number): Promise<string> {
    const res = await root.post(`/api/channel/${id}/key`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.key;
  }

  async function create(body: Record<string, unknown>): Promise<number> {
    const res = await admin.post('/api/channel/', body);
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(true);
    return res.body.data.ids[0];
  }

  it('creates a channel with defaults, normalised fields and abilities for models x groups', async () => {
    const before = published.length;
    const res = await admin.post('/api/channel/', {
      ...base,
      base_url: 'https://api.example.com///',
      priority: '5',
      weight: 3,
      model_mapping: '{"gpt-4":"gpt-4o"}',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('渠道创建成功！');
    const id = res.body.data.ids[0];
    const detail = await admin.get(`/api/channel/${id}`);
    expect(detail.body.data).toMatchObject({
      id,
      name: 'primary',
      base_url: 'https://api.example.com',
      priority: 5,
      weight: 3,
      models: 'gpt-4o,gpt-4o-mini',
      group: 'default,vip',
      auto_ban: 1,
      status: 1,
      model_mapping: '{"gpt-4":"gpt-4o"}',
    });
    expect(detail.body.data.key).toBeUndefined();
    expect(await keyOf(id)).toBe('sk-upstream-1');
    const abilities = await abilitiesOf(id);
    expect(abilities.map((a) => `${a.group}/${a.model}/${a.enabled}/${a.priority}/${a.weight}`)).toEqual([
      'default/gpt-4o/1/5/3',
      'default/gpt-4o-mini/1/5/3',
      'vip/gpt-4o/1/5/3',
      'vip/gpt-4o-mini/1/5/3',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(published.length).toBeGreaterThan(before);
  });

  it('applies the channel defaults: type 1, group default, iFlytek default version', async () => {
    const id = await create({ name: 'defaults', key: 'k', models: 'm1, m2,m1' });
    const detail = (await admin.get(`/api/channel/${id}`)).body.data;
    expect(detail).toMatchObject({ type: 1, group: 'default', priority: 0, weight: 0, auto_ban: 1, models: 'm1,m2' });
    const spark = await create({ name: 'spark', type: 18, key: 'a|b|c', models: ['SparkDesk'] });
    expect((await admin.get(`/api/channel/${spark}`)).body.data.other).toBe('v2.1');
    expect(applyTypeDefaults({ other: 'v3.5' }, 18)).toEqual({ other: 'v3.5' });
  });

  it('rejects create input with the spec messages', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, name: '' }, '请填写渠道名称和渠道密钥！'],
      [{ ...base, key: '  ' }, '请填写渠道名称和渠道密钥！'],
      [{ name: 'x', models: ['m'] }, '请填写渠道名称和渠道密钥！'],
      [{ ...base, models: [] }, '请至少选择一个模型！'],
      [{ ...base, models: ' , ' }, '请至少选择一个模型！'],
      [{ ...base, model_mapping: '{not json' }, '模型映射必须是合法的 JSON 格式！'],
      [{ ...base, model_mapping: '[1,2]' }, '模型映射必须是合法的 JSON 格式！'],
      [{ ...base, status_code_mapping: 'x' }, '状态码映射必须是合法的 JSON 格式！'],
      [{ ...base, param_override: '"str"' }, '参数覆盖必须是合法的 JSON 格式！'],
      [{ ...base, setting: '{' }, '渠道额外设置必须是合法的 JSON 格式！'],
      [{ ...base, other_info: 'nope' }, 'other_info 必须是合法的 JSON 格式！'],
      [{ ...base, priority: 'high' }, '优先级必须是整数！'],
      [{ ...base, priority: 1.5 }, '优先级必须是整数！'],
      [{ ...base, priority: -1000 }, '优先级不能小于 -999！'],
      [{ ...base, weight: -1 }, '权重必须是非负整数！'],
      [{ ...base, weight: '2.5' }, '权重必须是非负整数！'],
      [{ ...base, type: 9999 }, '未知的渠道类型'],
      [{ ...base, type: 41, key: '{not-json' }, '该渠道类型的密钥必须是合法的 JSON 格式！'],
    ];
    for (const [body, message] of cases) {
      const res = await admin.post('/api/channel/', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ success: false, message, data: null });
    }
    const wrongType = await admin.post('/api/channel/', { ...base, name: 42 });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toContain('name');
    const tooLong = await admin.post('/api/channel/', { ...base, models: ['x'.repeat(300)] });
    expect(tooLong.status).toBe(400);
    const manyGroups = await admin.post('/api/channel/', { ...base, groups: Array.from({ length: 40 }, (_, i) => `group-number-${i}`) });
    expect(manyGroups.body.message).toBe('分组列表不能超过 255 个字符');
  });

  it('batch mode makes one channel per key line (JSON array for credential types)', async () => {
    const res = await admin.post('/api/channel/', { ...base, name: 'batchy', mode: 'batch', key: 'k1\n\n k2 \nk3\nk1' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.ids).toHaveLength(3);
    const keys = await Promise.all(res.body.data.ids.map((id: number) => keyOf(id)));
    expect(keys).toEqual(['k1', 'k2', 'k3']);
    for (const id of res.body.data.ids) expect(await abilitiesOf(id)).toHaveLength(4);
    const account = (project: string) => ({
      project_id: project,
      client_email: `r@${project}.iam.gserviceaccount.com`,
      private_key: 'pem',
    }); // validated
    const vertex = await admin.post('/api/channel/', {
      ...base,
      name: 'vx',
      type: 41,
      mode: 'batch',
      key: JSON.stringify([account('p1'), account('p2')]),
    });
    expect(vertex.body.data.ids).toHaveLength(2);
    expect(await keyOf(vertex.body.data.ids[1])).toBe(JSON.stringify(account('p2')));
  });

  it('accepts the editor sending the whole row back (read-only fields ignored, empty key kept)', async () => {
    const id = await create({ ...base, name: 'round-trip' });
    const row = (await admin.get(`/api/channel/${id}`)).body.data;
    const res = await admin.put('/api/channel/', {
      ...row,
      key: '',
      name: 'round-trip-2',
      balance: 999,
      used_quota: 5,
      groups: ['default'],
    });
    expect(res.status, res.text).toBe(200);
    const after = (await admin.get(`/api/channel/${id}`)).body.data;
    expect(after).toMatchObject({ name: 'round-trip-2', balance: 0, used_quota: 0, group: 'default' });
    expect(await keyOf(id)).toBe('sk-upstream-1');
    // The row as the editor loads it (no key) saved back unchanged keeps the key too.
    expect((await admin.put('/api/channel/', { ...after, groups: ['default'] })).status).toBe(200);
    expect(await keyOf(id)).toBe('sk-upstream-1');
  });

  it('updates fields, status, priority and weight and keeps abilities in step', async () => {
    const id = await create({ ...base, name: 'to-update' });
    const res = await admin.put('/api/channel/', { id, name: 'renamed', models: ['claude-3'], groups: 'default', key: '', priority: 7 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message).toBe('渠道更新成功！');
    expect(res.body.data).toMatchObject({ id, name: 'renamed', models: 'claude-3', group: 'default', priority: 7 });
    expect(res.body.data.key).toBeUndefined();
    expect(await keyOf(id)).toBe('sk-upstream-1');
    expect((await abilitiesOf(id)).map((a) => `${a.group}/${a.model}/${a.priority}`)).toEqual(['default/claude-3/7']);

    expect((await admin.put('/api/channel/', { id, status: 2 })).status).toBe(200);
    expect((await abilitiesOf(id))[0]!.enabled).toBe(0);
    expect((await admin.put('/api/channel/', { id, status: 1, weight: 9 })).status).toBe(200);
    expect((await abilitiesOf(id))[0]).toMatchObject({ enabled: 1, weight: 9 });

    expect((await admin.put('/api/channel/', { id, models: [] })).body.message).toBe('请至少选择一个模型！');
    expect((await admin.put('/api/channel/', { id, name: '' })).body.message).toBe('请填写渠道名称和渠道密钥！');
    expect((await admin.put('/api/channel/', { id, model_mapping: '{bad' })).body.message).toBe('模型映射必须是合法的 JSON 格式！');
    expect((await admin.put('/api/channel/', { id: 999999, status: 2 })).status).toBe(404);
    expect((await admin.put('/api/channel/', { status: 2 })).status).toBe(400);
  });

  it('lets only the root point a channel elsewhere while keeping its key; an admin gives a new key with it', async () => {
    const id = await create({ ...base, name: 'kept-key', base_url: 'https://api.example.com' });
    // Another base URL or type with the stored key would send the key to whoever runs that host.
    for (const change of [
      { base_url: 'https://collector.example.net' },
      { base_url: '' },
      { type: 8, base_url: 'https://api.example.com' },
    ]) {
      const refused = await admin.put('/api/channel/', { id, ...change });
      expect([refused.status, refused.body.message], JSON.stringify(change)).toEqual([
        403,
        '修改渠道的类型或代理地址时请同时填写新密钥：只有超级管理员可以保留原密钥',
      ]);
    }
    const english = await admin.put(
      '/api/channel/',
      { id, base_url: 'https://collector.example.net' },
      { headers: { 'accept-language': 'en' } },
    );
    expect(english.body.message).toBe(
      "Enter a new key when you change a channel's type or base URL: only the root may keep the stored key",
    );
    expect((await admin.get(`/api/channel/${id}`)).body.data).toMatchObject({ type: 1, base_url: 'https://api.example.com' });
    expect(await keyOf(id)).toBe('sk-upstream-1');
    // The same base URL written differently, and every other field, are the admin's to change.
    expect((await admin.put('/api/channel/', { id, base_url: 'https://api.example.com//', name: 'kept-key-2', priority: 3 })).status).toBe(
      200,
    );
    // With a new key the admin may move the channel: the stored key never goes anywhere new.
    expect((await admin.put('/api/channel/', { id, base_url: 'https://other.example.org', key: 'sk-admin-own' })).status).toBe(200);
    expect(await keyOf(id)).toBe('sk-admin-own');
    // The root may move it and keep the key.
    expect((await root.put('/api/channel/', { id, base_url: 'https://third.example.org' })).status).toBe(200);
    expect((await admin.get(`/api/channel/${id}`)).body.data.base_url).toBe('https://third.example.org');
    expect(await keyOf(id)).toBe('sk-admin-own');
  });

  it('answers the models that have no price on create and update (none in self-use mode)', async () => {
    const prices = server.ctx.options.get('ModelPrice');
    try {
      const created = await admin.post('/api/channel/', {
        ...base,
        name: 'unpriced',
        models: ['gpt-4o', 'zz-unpriced-b', 'zz-unpriced-a', 'zz-unpriced-a'],
      });
      expect(created.status, created.text).toBe(200);
      expect(created.body.data).toEqual({ ids: [expect.any(Number)], unpriced_models: ['zz-unpriced-a', 'zz-unpriced-b'] });
      const id = created.body.data.ids[0];

      await server.ctx.options.set('ModelPrice', JSON.stringify({ ...JSON.parse(prices), 'zz-unpriced-a': 0.01 }));
      const renamed = await admin.put('/api/channel/', { id, name: 'unpriced-2' });
      expect(renamed.body.data).toMatchObject({ id, name: 'unpriced-2', unpriced_models: ['zz-unpriced-b'] });
      const priced = await admin.put('/api/channel/', { id, models: ['gpt-4o', 'zz-unpriced-a'] });
      expect(priced.body.data.unpriced_models).toEqual([]);

      await server.ctx.options.set('SelfUseModeEnabled', 'true');
      const selfUse = await admin.put('/api/channel/', { id, models: ['zz-unpriced-b'] });
      expect(selfUse.body.data.unpriced_models).toEqual([]);
    } finally {
      await server.ctx.options.set('SelfUseModeEnabled', 'false');
      await server.ctx.options.set('ModelPrice', prices);
    }
  });

  it('lists pages without keys, sorted by priority or by id', async () => {
    const low = await create({ ...base, name: 'sort-low', priority: -5 });
    const high = await create({ ...base, name: 'sort-high', priority: 100 });
    const byPriority = await admin.get('/api/channel/?p=1&page_size=2');
    expect(byPriority.status).toBe(200);
    expect(byPriority.body.data).toMatchObject({ page: 1, page_size: 2 });
    expect(byPriority.body.data.items).toHaveLength(2);
    expect(byPriority.body.data.items[0].id).toBe(high);
    expect(byPriority.body.data.items[0].key).toBeUndefined();
    const total = byPriority.body.data.total;
    const byId = await admin.get(`/api/channel/?p=0&page_size=100&id_sort=true`);
    expect(byId.body.data.page).toBe(1);
    expect(byId.body.data.total).toBe(total);
    const ids = byId.body.data.items.map((c: { id: number }) => c.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const last = await admin.get(`/api/channel/?p=1&page_size=100`);
    expect(last.body.data.items.at(-1).id).toBe(low);
    expect((await admin.get('/api/channel/?page_size=1000')).status).toBe(400);
    expect((await admin.get('/api/channel/?p=abc')).status).toBe(400);
  });

  it('groups tagged channels in tag mode with aggregated status', async () => {
    const a = await create({ ...base, name: 'tag-a', tag: 'team', models: ['m-a'] });
    const b = await create({ ...base, name: 'tag-b', tag: 'team', models: ['m-b'] });
    await admin.put('/api/channel/', { id: a, status: 2 });
    const res = await admin.get('/api/channel/?tag_mode=true&page_size=100');
    const row = res.body.data.items.find((item: any) => item.is_tag && item.tag === 'team');
    expect(row).toMatchObject({ is_tag: true, name: 'team', status: 1 });
    expect(row.models.split(',').sort()).toEqual(['m-a', 'm-b']);
    expect(row.children.map((c: any) => c.id).sort()).toEqual([a, b].sort());
    expect(res.body.data.items.some((item: any) => item.id === a)).toBe(false);
    await admin.put('/api/channel/', { id: b, status: 3 });
    const again = await admin.get('/api/channel/?tag_mode=true&page_size=100');
    expect(again.body.data.items.find((item: any) => item.tag === 'team').status).toBe(2);
  });

  it('searches by keyword, group and model', async () => {
    const id = await create({ ...base, name: 'Searchable-One', base_url: 'https://find.me', models: ['special-model'], groups: ['svip'] });
    const byName = await admin.get('/api/channel/search?keyword=searchable');
    expect(byName.body.data.items.map((c: any) => c.id)).toEqual([id]);
    expect(byName.body.data.items[0].key).toBeUndefined();
    expect((await admin.get('/api/channel/search?keyword=find.me')).body.data.items.map((c: any) => c.id)).toEqual([id]);
    expect((await admin.get(`/api/channel/search?keyword=${id}`)).body.data.items.map((c: any) => c.id)).toContain(id);
    expect((await admin.get('/api/channel/search?group=svip')).body.data.items.map((c: any) => c.id)).toEqual([id]);
    expect((await admin.get('/api/channel/search?model=special-model&group=svip')).body.data.total).toBe(1);
    expect((await admin.get('/api/channel/search?model=special')).body.data.total).toBe(0);
    expect((await admin.get('/api/channel/search?keyword=Searchable&tag_mode=true')).body.data.total).toBe(1);
  });

  it('sets, edits, enables, disables and dissolves tags; abilities follow', async () => {
    const x = await create({ ...base, name: 'tx', models: ['tm'] });
    const y = await create({ ...base, name: 'ty', models: ['tm'] });
    expect((await admin.post('/api/channel/batch/tag', { ids: [], tag: 't' })).body.message).toBe('请先选择要设置标签的渠道！');
    const set = await admin.post('/api/channel/batch/tag', { ids: [x, y], tag: 'grp' });
    expect(set.body).toMatchObject({ success: true, data: 2 });
    expect((await abilitiesOf(x)).every((a) => a.tag === 'grp')).toBe(true);

    expect((await admin.put('/api/channel/tag', { tag: 'grp' })).body.message).toBe('没有任何修改！');
    expect((await admin.put('/api/channel/tag', { tag: 'grp', model_mapping: '{x' })).body.message).toBe(
      '模型映射必须是合法的 JSON 格式！',
    );
    expect((await admin.put('/api/channel/tag', { tag: 'grp', priority: 'a' })).body.message).toBe('优先级必须是整数！');
    expect((await admin.put('/api/channel/tag', { tag: 'grp', weight: -2 })).body.message).toBe('权重必须是非负整数！');
    expect((await admin.put('/api/channel/tag', { tag: 'nope', weight: 1 })).status).toBe(404);
    const edit = await admin.put('/api/channel/tag', {
      tag: 'grp',
      new_tag: 'grp2',
      models: ['n1', 'n2'],
      groups: ['default'],
      priority: 3,
      weight: 4,
    });
    expect(edit.body).toMatchObject({ success: true, data: 2 });
    expect((await abilitiesOf(y)).map((a) => `${a.group}/${a.model}/${a.priority}/${a.weight}/${a.tag}`)).toEqual([
      'default/n1/3/4/grp2',
      'default/n2/3/4/grp2',
    ]);

    expect((await admin.post('/api/channel/tag/disabled', { tag: 'grp2' })).body.data).toBe(2);
    expect((await abilitiesOf(x)).every((a) => a.enabled === 0)).toBe(true);
    expect((await admin.get(`/api/channel/${x}`)).body.data.status).toBe(2);
    expect((await admin.post('/api/channel/tag/enabled', { tag: 'grp2' })).body.data).toBe(2);
    expect((await abilitiesOf(x)).every((a) => a.enabled === 1)).toBe(true);
    expect((await admin.post('/api/channel/tag/enabled', { tag: '' })).body.message).toBe('标签不能为空！');

    expect((await admin.put('/api/channel/tag', { tag: 'grp2', new_tag: '' })).body.data).toBe(2);
    expect((await admin.get(`/api/channel/${x}`)).body.data.tag).toBe('');
    expect((await abilitiesOf(x)).every((a) => a.tag === '')).toBe(true);

    await admin.post('/api/channel/batch/tag', { ids: [x], tag: 'again' });
    expect((await admin.post('/api/channel/batch/tag', { ids: [x], tag: '' })).body.data).toBe(1);
    expect((await admin.get(`/api/channel/${x}`)).body.data.tag).toBe('');
  });

  it('copies a channel with a suffix, zero balance and reset test results', async () => {
    const id = await create({ ...base, name: 'original' });
    await server.ctx.storage.db
      .updateTable('channels')
      .set({ balance: 12.5, used_quota: 999, response_time: 300, test_time: 123 })
      .where('id', '=', id)
      .execute();
    const res = await admin.post(`/api/channel/copy/${id}`);
    expect(res.status, res.text).toBe(200);
    const copy = (await admin.get(`/api/channel/${res.body.data.id}`)).body.data;
    expect(await keyOf(copy.id)).toBe('sk-upstream-1');
    expect(copy).toMatchObject({
      name: 'original_复制',
      balance: 0,
      used_quota: 0,
      response_time: 0,
      test_time: 0,
      models: base.models.join(','),
    });
    expect(await abilitiesOf(copy.id)).toHaveLength(4);
    const kept = await admin.post(`/api/channel/copy/${id}?reset_balance=false&suffix=-b`);
    expect((await admin.get(`/api/channel/${kept.body.data.id}`)).body.data).toMatchObject({
      name: 'original-b',
      balance: 12.5,
      used_quota: 999,
    });
    const missing = await admin.post('/api/channel/copy/999999');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('渠道未找到，请刷新页面后重试。');
  });

  it('lists models and enabled models', async () => {
    const id = await create({ ...base, name: 'models', models: ['only-disabled-model'] });
    await admin.put('/api/channel/', { id, status: 2 });
    const all = await admin.get('/api/channel/models');
    expect(all.body.data).toContainEqual({ id: 'only-disabled-model' });
    expect(all.body.data).toContainEqual({ id: 'gpt-4o' });
    const enabled = await admin.get('/api/channel/models_enabled');
    expect(enabled.body.data).toContain('gpt-4o');
    expect(enabled.body.data).not.toContain('only-disabled-model');
  });

  it('fixes abilities from the channel rows', async () => {
    const id = await create({ ...base, name: 'to-fix' });
    await server.ctx.storage.db.deleteFrom('abilities').where('channel_id', '=', id).execute();
    await server.ctx.storage.db.insertInto('abilities').values({ group: 'ghost', model: 'ghost', channel_id: 987654 }).execute();
    const res = await admin.post('/api/channel/fix');
    const count = await server.ctx.storage.db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(res.body).toMatchObject({ success: true, data: Number(count.n) });
    expect(await abilitiesOf(id)).toHaveLength(4);
    expect(await abilitiesOf(987654)).toHaveLength(0);
  });

  it('deletes one, a batch and all disabled channels with their abilities', async () => {
    const one = await create({ ...base, name: 'del-one' });
    expect((await admin.delete(`/api/channel/${one}/`)).body.success).toBe(true);
    expect((await admin.get(`/api/channel/${one}`)).status).toBe(404);
    expect(await abilitiesOf(one)).toHaveLength(0);
    expect((await admin.delete(`/api/channel/${one}`)).status).toBe(404);

    const a = await create({ ...base, name: 'del-a' });
    const b = await create({ ...base, name: 'del-b' });
    expect((await admin.post('/api/channel/batch', { ids: [] })).body.message).toBe('请先选择要删除的通道！');
    expect((await admin.post('/api/channel/batch', { ids: [a, b, 999999] })).body.data).toBe(2);
    expect(await abilitiesOf(a)).toHaveLength(0);

    const c = await create({ ...base, name: 'del-c' });
    const d = await create({ ...base, name: 'del-d' });
    await admin.put('/api/channel/', { id: c, status: 2 });
    await admin.put('/api/channel/', { id: d, status: 3 });
    const disabledBefore = await server.ctx.storage.db.selectFrom('channels').select('id').where('status', '!=', 1).execute();
    const res = await admin.delete('/api/channel/disabled');
    expect(res.body).toMatchObject({ success: true, data: disabledBefore.length });
    expect(disabledBefore.length).toBeGreaterThanOrEqual(2);
    expect((await admin.get(`/api/channel/${c}`)).status).toBe(404);
    expect(await abilitiesOf(d)).toHaveLength(0);
    const left = await server.ctx.storage.db.selectFrom('channels').select('id').where('status', '!=', 1).execute();
    expect(left).toHaveLength(0);
  });

  it('enforces roles and rejects bad input', async () => {
    const anonymous = server.client();
    expect((await anonymous.get('/api/channel/')).status).toBe(401);
    expect((await anonymous.post('/api/channel/', base)).status).toBe(401);
    for (const [method, path] of [
      ['GET', '/api/channel/'],
      ['GET', '/api/channel/1'],
      ['POST', '/api/channel/'],
      ['PUT', '/api/channel/'],
      ['DELETE', '/api/channel/1'],
      ['DELETE', '/api/channel/disabled'],
      ['POST', '/api/channel/fix'],
      ['GET', '/api/channel/models'],
      ['POST', '/api/channel/batch'],
      ['PUT', '/api/channel/tag'],
      ['POST', '/api/channel/copy/1'],
    ] as const) {
      const res = await user.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : { id: 1 });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    const malformed = await admin.post('/api/channel/', undefined, { raw: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.success).toBe(false);
    expect((await admin.get('/api/channel/abc')).status).toBe(400);
    expect((await admin.get('/api/channel/999999')).status).toBe(404);
    const huge = await admin.post('/api/channel/', { ...base, key: 'k'.repeat(3 * 1024 * 1024) });
    expect(huge.status).toBe(413);
  });
  it('shows a key to the root only, on the explicit reveal; no other channel answer carries it', async () => {
    const secret = 'sk-very-secret-upstream-key';
    const bodies: string[] = [];
    const seen = async (client: ApiClient, method: string, path: string, body?: unknown) => {
      const res = await client.request(method, path, body);
      bodies.push(res.text);
      return res;
    };
    const created = await seen(admin, 'POST', '/api/channel/', { ...base, name: 'secretive', key: secret, tag: 'hidden-tag' });
    const id = created.body.data.ids[0] as number;
    for (const client of [admin, root]) {
      expect((await seen(client, 'GET', `/api/channel/${id}`)).status).toBe(200);
      await seen(client, 'GET', '/api/channel/?p=1&page_size=100');
      await seen(client, 'GET', '/api/channel/?p=1&page_size=100&tag_mode=true');
      await seen(client, 'GET', '/api/channel/search?keyword=secretive');
      await seen(client, 'PUT', '/api/channel/', { id, name: 'secretive', key: '' });
      await seen(client, 'POST', `/api/channel/copy/${id}`);
      await seen(client, 'PUT', '/api/channel/tag', { tag: 'hidden-tag', new_tag: 'hidden-tag', priority: 1 });
    }
    for (const text of bodies) expect(text).not.toContain(secret);

    const byAdmin = await admin.post(`/api/channel/${id}/key`);
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.text).not.toContain(secret);
    expect((await user.post(`/api/channel/${id}/key`)).status).toBe(403);
    expect((await server.client().post(`/api/channel/${id}/key`)).status).toBe(401);
    const revealed = await root.post(`/api/channel/${id}/key`);
    expect(revealed.status).toBe(200);
    expect(revealed.body).toEqual({ success: true, message: '获取成功', data: { key: secret } });
    expect(revealed.headers.get('cache-control')).toBe('no-store');
    expect((await root.post('/api/channel/999999/key')).status).toBe(404);
    expect((await root.post('/api/channel/abc/key')).status).toBe(400);
  });
});
