import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModelPrice } from '../../src/options/default-ratios.js';
import { startMjUpstream, type MjUpstream } from '../helpers/mj-upstream.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const quotaPerUnit = 500_000;

/**
 * A fresh install (ModelPrice never saved) prices every Midjourney and Suno action with new-api's
 * defaults, so a new drawing or music channel takes submits on day one instead of refusing them as
 * unpriced.
 */
describe('task prices of a fresh install', () => {
  let server: TestServer;
  let mj: MjUpstream;
  let suno: SunoUpstream;
  let user: { id: number; key: string };

  const call = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
  const quotaLeft = async () =>
    Number((await server.ctx.storage.db.selectFrom('users').select('quota').where('id', '=', user.id).executeTakeFirstOrThrow()).quota);
  const lastConsume = () =>
    server.ctx.storage.db
      .selectFrom('logs')
      .select(['model_name', 'quota'])
      .where('user_id', '=', user.id)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();

  beforeAll(async () => {
    mj = await startMjUpstream('mj-secret');
    suno = await startSunoUpstream('suno-key');
    server = await startTestServer({ env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'DrawingEnabled', 'true');
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await createRelayChannel(server.ctx, { type: 5, key: 'mj-secret', baseURL: mj.url, models: ['mj_imagine', 'mj_describe'] });
    await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: suno.url, models: ['suno_music', 'suno_lyrics'] });
    const id = await createRelayUser(server.ctx, { quota: 10_000_000 });
    user = { id, key: (await createRelayToken(server.ctx, id)).key };
  });
  afterAll(async () => {
    await server?.stop();
    await mj?.close();
    await suno?.close();
  });

  it('ships new-api\u2019s per-call prices for every Midjourney and Suno action', () => {
    expect(server.ctx.options.json<Record<string, number>>('ModelPrice')).toMatchObject({
      mj_imagine: 0.1,
      mj_variation: 0.1,
      mj_reroll: 0.1,
      mj_blend: 0.1,
      mj_modal: 0.1,
      mj_zoom: 0.1,
      mj_shorten: 0.1,
      mj_high_variation: 0.1,
      mj_low_variation: 0.1,
      mj_pan: 0.1,
      mj_inpaint: 0,
      mj_custom_zoom: 0,
      mj_describe: 0.05,
      mj_upscale: 0.05,
      swap_face: 0.05,
      mj_upload: 0.05,
      mj_video: 0.8,
      mj_edits: 0.1,
      suno_music: 0.1,
      suno_lyrics: 0.01,
    });
    expect(server.ctx.options.get('ModelPrice')).toBe(JSON.stringify(defaultModelPrice));
  });

  it('bills a Midjourney imagine and describe at the default price', async () => {
    mj.nextScript([{ status: 'SUCCESS' }]);
    const before = await quotaLeft();
    const imagine = await call('/mj/submit/imagine', { prompt: 'a lighthouse' });
    expect(imagine).toMatchObject({ status: 200, body: { code: 1 } });
    expect(await quotaLeft()).toBe(before - 0.1 * quotaPerUnit);
    expect(await lastConsume()).toMatchObject({ model_name: 'mj_imagine', quota: 0.1 * quotaPerUnit });

    mj.nextScript([{ status: 'SUCCESS' }]);
    const describe = await call('/mj/submit/describe', { base64: 'data:image/png;base64,iVBORw0KGgo=' });
    expect(describe).toMatchObject({ status: 200, body: { code: 1 } });
    expect(await quotaLeft()).toBe(before - 0.15 * quotaPerUnit);
    expect(await lastConsume()).toMatchObject({ model_name: 'mj_describe', quota: 0.05 * quotaPerUnit });
  });

  it('bills Suno music and lyrics at the default price', async () => {
    suno.nextScript([{ status: 'SUCCESS' }]);
    const before = await quotaLeft();
    expect(await call('/suno/submit/music', { prompt: 'a song' })).toMatchObject({ status: 200, body: { code: 'success' } });
    expect(await lastConsume()).toMatchObject({ model_name: 'suno_music', quota: 0.1 * quotaPerUnit });
    suno.nextScript([{ status: 'SUCCESS' }]);
    expect(await call('/suno/submit/lyrics', { prompt: 'some words' })).toMatchObject({ status: 200, body: { code: 'success' } });
    expect(await lastConsume()).toMatchObject({ model_name: 'suno_lyrics', quota: 0.01 * quotaPerUnit });
    expect(await quotaLeft()).toBe(before - 0.11 * quotaPerUnit);
  });
});
