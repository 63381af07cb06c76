import { channelTypeNames } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportContext } from '../../src/import/context.js';
import type { SourceSchema } from '../../src/import/detect-schema.js';
import { channelsMapper } from '../../src/import/tables/channels.js';
import { adapterForType } from '../../src/relay/providers/registry.js';
import type { ApiClient } from '../helpers/api-client.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * Every type of the spec has an adapter now; a row can still hold a type ModelGate has none for
 * (imported from a newer new-api: 49 is its Coze). The console's forms never offer it.
 */
const unsupported =
  Object.keys(channelTypeNames)
    .map(Number)
    .find((type) => adapterForType(type) === null) ?? 49;
const refusal = channelTypeNames[unsupported]
  ? `渠道类型 ${unsupported}（${channelTypeNames[unsupported]}）暂不支持，无法创建或启用`
  : `渠道类型 ${unsupported}暂不支持，无法创建或启用`;
const refused = { success: false, message: refusal, data: null };
/** Create and switch refuse a type unknown to the spec earlier, at the schema. */
const refusedAtCreate = channelTypeNames[unsupported] ? refused : { success: false, message: '未知的渠道类型', data: null };

describe('a channel type without an adapter can be neither created nor enabled', () => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer();
    admin = (await signedInClient(server, { username: 'ops', role: 10 })).client;
  });
  afterAll(async () => {
    await server.stop();
  });

  const body = { name: 'c', key: 'sk-1', models: 'm-1', group: 'default' };
  const channelOf = (id: number) =>
    server.ctx.storage.db.selectFrom('channels').select(['type', 'status', 'name']).where('id', '=', id).executeTakeFirstOrThrow();
  const enabledAbilities = async (id: number) =>
    (await server.ctx.storage.db.selectFrom('abilities').select('enabled').where('channel_id', '=', id).execute()).map(
      (row) => row.enabled,
    );
  const countChannels = async () => (await server.ctx.storage.db.selectFrom('channels').select('id').execute()).length;
  /** A row as an earlier version or an import left it. */
  const legacyChannel = (status: number, tag = '') =>
    createRelayChannel(server.ctx, { type: unsupported, key: 'mj-key', baseURL: '', models: ['mj_imagine'], status }).then(async (id) => {
      if (tag) await server.ctx.storage.db.updateTable('channels').set({ tag }).where('id', '=', id).execute();
      return id;
    });

  it('the type used here really has no adapter, and every type of the spec has one', () => {
    expect(adapterForType(unsupported)).toBeNull();
    expect(
      Object.keys(channelTypeNames)
        .map(Number)
        .filter((type) => adapterForType(type) === null),
    ).toEqual([]);
  });

  it('create refuses it, single and batch (multi-key), and writes nothing', async () => {
    const before = await countChannels();
    const single = await admin.post('/api/channel/', { ...body, type: unsupported });
    expect(single.status).toBe(400);
    expect(single.body).toEqual(refusedAtCreate);
    const batch = await admin.post('/api/channel/', { ...body, type: unsupported, mode: 'batch', key: 'k1\nk2' });
    expect(batch.status).toBe(400);
    expect(batch.body).toEqual(refusedAtCreate);
    const disabled = await admin.post('/api/channel/', { ...body, type: unsupported, status: 2 });
    expect(disabled.body).toEqual(refusedAtCreate);
    expect(await countChannels()).toBe(before);
  });

  it('a supported type still creates, single and batch', async () => {
    const single = await admin.post('/api/channel/', { ...body, type: 1 });
    expect(single.status, single.text).toBe(200);
    const batch = await admin.post('/api/channel/', { ...body, type: 1, mode: 'batch', key: 'k1\nk2' });
    expect(batch.body.data.ids).toHaveLength(2);
  });

  it('update refuses switching to the type and enabling a row of it; other edits and disabling still work', async () => {
    const id = (await admin.post('/api/channel/', { ...body, name: 'switch-me' })).body.data.ids[0] as number;
    const switched = await admin.put('/api/channel/', { id, type: unsupported });
    expect(switched.status).toBe(400);
    expect(switched.body).toEqual(refusedAtCreate);
    expect(await channelOf(id)).toMatchObject({ type: 1, status: 1 });

    const legacy = await legacyChannel(2);
    const enable = await admin.put('/api/channel/', { id: legacy, status: 1 });
    expect(enable.status).toBe(400);
    expect(enable.body).toEqual(refused);
    expect(await channelOf(legacy)).toMatchObject({ status: 2 });
    expect(await enabledAbilities(legacy)).toEqual([0]);
    const renamed = await admin.put('/api/channel/', { id: legacy, name: 'kept for the record' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(await channelOf(legacy)).toMatchObject({ name: 'kept for the record', status: 2 });

    const enabledLegacy = await legacyChannel(1);
    expect((await admin.put('/api/channel/', { id: enabledLegacy, status: 2 })).status).toBe(200);
    expect(await channelOf(enabledLegacy)).toMatchObject({ status: 2 });
    expect((await admin.put('/api/channel/', { id: enabledLegacy, status: 1 })).body).toEqual(refused);

    const supported = (await admin.post('/api/channel/', { ...body, name: 'toggle' })).body.data.ids[0] as number;
    expect((await admin.put('/api/channel/', { id: supported, status: 2 })).status).toBe(200);
    expect((await admin.put('/api/channel/', { id: supported, status: 1 })).status).toBe(200);
    expect(await channelOf(supported)).toMatchObject({ status: 1 });
  });

  it('copy refuses a channel of the type; a supported channel copies', async () => {
    const legacy = await legacyChannel(2);
    const before = await countChannels();
    const copy = await admin.post(`/api/channel/copy/${legacy}`);
    expect(copy.status).toBe(400);
    expect(copy.body).toEqual(refused);
    expect(await countChannels()).toBe(before);
    const supported = (await admin.post('/api/channel/', { ...body, name: 'original' })).body.data.ids[0] as number;
    const copied = await admin.post(`/api/channel/copy/${supported}`);
    expect(copied.status, copied.text).toBe(200);
    expect(await channelOf(copied.body.data.id)).toMatchObject({ name: 'original_复制', type: 1 });
  });

  it('tag enable refuses a tag holding a channel of the type and changes nothing; tag disable works', async () => {
    const legacy = await legacyChannel(2, 'mixed');
    const supported = (await admin.post('/api/channel/', { ...body, name: 'tagged', tag: 'mixed', status: 2 })).body.data.ids[0] as number;
    const enable = await admin.post('/api/channel/tag/enabled', { tag: 'mixed' });
    expect(enable.status).toBe(400);
    expect(enable.body).toEqual(refused);
    expect(await channelOf(legacy)).toMatchObject({ status: 2 });
    expect(await channelOf(supported)).toMatchObject({ status: 2 });
    expect((await admin.post('/api/channel/tag/disabled', { tag: 'mixed' })).status).toBe(200);

    await admin.put('/api/channel/', { id: supported, tag: 'clean' });
    const clean = await admin.post('/api/channel/tag/enabled', { tag: 'clean' });
    expect(clean.status, clean.text).toBe(200);
    expect(await channelOf(supported)).toMatchObject({ status: 1 });
    expect(await enabledAbilities(supported)).toEqual([1]);
  });

  it('the channel test never auto-enables a channel of the type', async () => {
    await setOption(server.ctx, 'AutomaticEnableChannelEnabled', 'true');
    const legacy = await legacyChannel(3);
    const tested = await admin.get(`/api/channel/test/${legacy}`);
    expect(tested.body.success).toBe(false);
    expect(tested.body.message).toContain(`渠道类型 ${unsupported}`);
    expect(await channelOf(legacy)).toMatchObject({ status: 3 });
    expect(await enabledAbilities(legacy)).toEqual([0]);
  });
});

describe('import keeps channels of a type without an adapter, disabled with the reason', () => {
  const contextOf = (flavor: SourceSchema['flavor']) =>
    ({ schema: { flavor, tables: new Map(), has: () => true } satisfies SourceSchema, userIds: new Set() }) as unknown as ImportContext;
  const row = {
    id: 9,
    type: unsupported,
    key: 'mj-key',
    status: 1,
    name: 'mj',
    models: 'mj_imagine',
    group: 'default',
    other_info: '{"note":"x"}',
  };

  it('an enabled row comes in with status 2, the reason in other_info and a report note', () => {
    const ctx = contextOf('new-api');
    const mapped = channelsMapper.map(row, ctx);
    if (typeof mapped === 'string') throw new Error(mapped);
    expect(mapped).toMatchObject({ id: 9, type: unsupported, status: 2, key: 'mj-key' });
    const info = JSON.parse(mapped.other_info ?? '') as Record<string, unknown>;
    expect(info).toMatchObject({ note: 'x', status_reason: `${refusal}（导入时已禁用）` });
    expect(typeof info.status_time).toBe('number');
    expect(channelsMapper.rowNotes!(row, ctx)).toEqual([expect.stringContaining(`type ${unsupported}`)]);
  });

  it('a disabled row of the type and a supported enabled row keep their status and other_info', () => {
    const ctx = contextOf('new-api');
    expect(channelsMapper.map({ ...row, status: 3 }, ctx)).toMatchObject({ status: 3, other_info: '{"note":"x"}' });
    expect(channelsMapper.rowNotes!({ ...row, status: 3 }, ctx)).toEqual([]);
    expect(channelsMapper.map({ ...row, type: 1 }, ctx)).toMatchObject({ type: 1, status: 1, other_info: '{"note":"x"}' });
    expect(channelsMapper.rowNotes!({ ...row, type: 1 }, ctx)).toEqual([]);
  });
});
