import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startKlingUpstream, type KlingUpstream } from '../helpers/kling-upstream.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { newVideoCaller, pollTasks, videoLedger } from '../helpers/video-fixtures.js';

const quotaPerUnit = 500_000;
/** kling-v1-6's default price: US$0.028 per second (1 unit per 5 s at about US$0.14 a unit). */
const perSecond = 0.028 * quotaPerUnit;
const model = 'kling-v1-6';
/** A model only the channel with a wrong secret serves. */
const badKeyModel = 'kling-v1';
const seconds = (value: string) => value as OpenAI.Videos.VideoSeconds;
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/**
 * Kling videos through the task core: the openai SDK's `videos` client against the gateway, a local
 * Kling server that checks every JWT, and the ledger checked to the quota unit.
 */
describe.each(storageKinds())('Kling videos on %s', (kind) => {
  let server: TestServer;
  let kling: KlingUpstream;
  let channelId: number;
  let badChannelId: number;
  let user: { id: number; tokenId: number; key: string };

  const openai = (key = user.key) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const ledger = (userId: number) => videoLedger(server, userId, channelId);
  const poll = (times: number) => pollTasks(server, times);
  const submits = () => kling.requests.filter((request) => request.method === 'POST');
  /** Kling's id of a video (`k{n}`), from the upstream id the task row keeps (`text2video/k{n}`). */
  const klingIdOf = async (videoId: string) => {
    const row = await server.ctx.storage.db
      .selectFrom('tasks')
      .select('upstream_id')
      .where('task_id', '=', videoId)
      .executeTakeFirstOrThrow();
    return row.upstream_id.split('/')[1]!;
  };
  const taskCount = async () =>
    (await server.ctx.storage.db.selectFrom('tasks').select('task_id').where('user_id', '=', user.id).execute()).length;

  beforeAll(async () => {
    kling = await startKlingUpstream('ak-kling', 'sk-kling-secret');
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    // The local CDN stands in for a public one: addresses an upstream names are read under the SSRF protection.
    await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
    await setOption(server.ctx, 'fetch_setting.allowed_ports', '["1-65535"]');
    channelId = await createRelayChannel(server.ctx, { type: 50, key: 'ak-kling|sk-kling-secret', baseURL: kling.url, models: [model] });
    badChannelId = await createRelayChannel(server.ctx, {
      type: 50,
      key: 'ak-kling|not-the-secret',
      baseURL: `${kling.url}/v1`,
      models: [badKeyModel],
    });
    user = await newVideoCaller(server, 100_000_000);
  });
  afterAll(async () => {
    await server?.stop();
    await kling?.close();
  });

  it('text-to-video: a signed submit, billed per second, polled, retrieved and downloaded from the CDN without a credential', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({ model, prompt: 'A red panda on a bicycle', seconds: seconds('5'), size: '1280x720' });
    expect(created).toMatchObject({ object: 'video', model, status: 'queued', seconds: '5', size: '1280x720', error: null });
    const sent = submits().at(-1)!;
    expect(sent.path).toBe('/v1/videos/text2video');
    expect(sent.isAuthorized).toBe(true);
    expect(sent.body).toEqual({ model_name: model, prompt: 'A red panda on a bicycle', duration: '5', aspect_ratio: '16:9' });
    // The JWT: issued by the access key, valid 30 minutes from 5 seconds ago.
    expect(sent.token!.iss).toBe('ak-kling');
    expect(Number(sent.token!.exp) - Number(sent.token!.nbf)).toBe(1805);
    const charged = await ledger(user.id);
    expect(charged.used - before.used).toBe(5 * perSecond);
    expect(charged.quota - before.quota).toBe(-5 * perSecond);
    expect(charged.channelUsed - before.channelUsed).toBe(5 * perSecond);
    expect(charged.consumed - before.consumed).toBe(5 * perSecond);

    await poll(1);
    const task = await klingIdOf(created.id);
    expect(kling.requests.at(-1)).toMatchObject({ method: 'GET', path: `/v1/videos/text2video/${task}`, isAuthorized: true });
    expect(await openai().videos.retrieve(created.id)).toMatchObject({ status: 'in_progress', progress: 50 });
    await poll(1);
    const done = await openai().videos.retrieve(created.id);
    expect(done).toMatchObject({ id: created.id, status: 'completed', progress: 100, error: null });
    expect(JSON.stringify(done)).not.toContain(kling.cdnUrl);

    const apiBefore = kling.requests.length;
    const content = await openai().videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await content.arrayBuffer())).toEqual(kling.bytesOf(Number(task.slice(1))));
    expect(kling.cdnRequests.at(-1)!.path).toBe(`/kcdn/${task}.mp4?sign=abc`);
    expect(kling.cdnRequests.at(-1)!.headers.authorization).toBeUndefined();
    expect(kling.requests.length).toBe(apiBefore);
    const after = await ledger(user.id);
    expect(after.used).toBe(charged.used);
    expect(after.refunded).toBe(before.refunded);
  });

  it("reads a video on the channel's own host as the relay does; another private host only when the root allows it", async () => {
    const onApi = await (async () => {
      kling.videoHost = 'api';
      try {
        const video = await openai().videos.create({ model, prompt: 'On the API host', seconds: seconds('5') });
        await poll(2);
        return video;
      } finally {
        kling.videoHost = 'cdn';
      }
    })();
    const onCdn = await openai().videos.create({ model, prompt: 'On the CDN', seconds: seconds('5') });
    await poll(2);
    await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'false');
    try {
      const before = kling.cdnRequests.length;
      const own = await openai().videos.downloadContent(onApi.id);
      expect(Buffer.from(await own.arrayBuffer())).toEqual(kling.bytesOf(Number((await klingIdOf(onApi.id)).slice(1))));
      expect(kling.cdnRequests).toHaveLength(before + 1);
      // The CDN is another private host, which only the upstream named: refused by the SSRF protection.
      const refused = await openai()
        .videos.downloadContent(onCdn.id)
        .then(
          () => 200,
          (error: InstanceType<typeof OpenAI.APIError>) => error.status,
        );
      expect(refused).toBe(502);
      expect(kling.cdnRequests).toHaveLength(before + 1);
    } finally {
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
    }
  });

  it('image-to-video: the first frame as bare base64 to image2video, polled there', async () => {
    const before = await ledger(user.id);
    const image = await toFile(png, 'frame.png', { type: 'image/png' });
    const created = await openai().videos.create({
      model,
      prompt: 'The frame comes alive',
      seconds: seconds('10'),
      size: '720x1280',
      input_reference: image,
    });
    expect(created).toMatchObject({ status: 'queued', seconds: '10', size: '720x1280' });
    const sent = submits().at(-1)!;
    expect(sent.path).toBe('/v1/videos/image2video');
    expect(sent.body).toEqual({ model_name: model, prompt: 'The frame comes alive', duration: '10', image: png.toString('base64') });
    expect((await ledger(user.id)).used - before.used).toBe(10 * perSecond);
    await poll(2);
    expect(kling.requests.at(-1)!.path).toMatch(/^\/v1\/videos\/image2video\/k\d+$/);
    expect((await openai().videos.retrieve(created.id)).status).toBe('completed');
    const content = await openai().videos.downloadContent(created.id);
    expect((await content.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expect(kling.cdnRequests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('without seconds, a Kling video is 5 seconds long (Kling makes no 4), and billed so', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({ model, prompt: 'No length given' });
    expect(created.seconds).toBe('5');
    expect(submits().at(-1)!.body.duration).toBe('5');
    expect((await ledger(user.id)).used - before.used).toBe(5 * perSecond);
  });

  it('a failed video is refunded exactly once, and says why', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({
      model,
      prompt: 'Something Kling refuses later',
      seconds: seconds('5'),
      size: '720x1280',
    });
    kling.failing.add(await klingIdOf(created.id));
    expect(submits().at(-1)!.body.aspect_ratio).toBe('9:16');
    expect((await ledger(user.id)).used - before.used).toBe(5 * perSecond);
    await poll(5);
    const failed = await openai().videos.retrieve(created.id);
    expect(failed).toMatchObject({ status: 'failed', error: { message: 'The image failed the content review.' } });
    const after = await ledger(user.id);
    expect(after.used).toBe(before.used);
    expect(after.quota).toBe(before.quota);
    expect(after.channelUsed).toBe(before.channelUsed);
    expect(after.refunded - before.refunded).toBe(5 * perSecond);
    expect(
      await openai()
        .videos.downloadContent(created.id)
        .catch((error: unknown) => error),
    ).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('refuses 8 seconds and a 1080p size with a 400 before Kling is asked, and bills nothing', async () => {
    const before = await ledger(user.id);
    const sentBefore = kling.requests.length;
    const tasksBefore = await taskCount();
    for (const body of [
      { seconds: seconds('8') },
      { seconds: seconds('4') },
      { seconds: seconds('5'), size: '1920x1080' as string as OpenAI.Videos.VideoSize },
    ]) {
      const error = await openai()
        .videos.create({ model, prompt: 'x', ...body })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      if (body.seconds === '8') expect((error as Error).message).toContain('5');
    }
    expect(kling.requests.length).toBe(sentBefore);
    const after = await ledger(user.id);
    expect(after).toEqual(before);
    expect(after.channelStatus).toBe(1);
    expect(await taskCount()).toBe(tasksBefore);
  });

  it('a submit Kling refuses (code ≠ 0 in a 200) is a 400, unbilled, and does not blame the channel', async () => {
    const before = await ledger(user.id);
    const error = await openai()
      .videos.create({ model, prompt: 'Please REFUSE this', seconds: seconds('5') })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('1301');
    expect(submits().at(-1)!.isAuthorized).toBe(true);
    const after = await ledger(user.id);
    expect(after).toEqual(before);
    expect(after.channelStatus).toBe(1);
    // The channel still takes the next video.
    const next = await openai().videos.create({ model, prompt: 'Fine again', seconds: seconds('5') });
    expect(next.status).toBe('queued');
  });

  it('a key whose secret is wrong is refused by Kling (its JWT does not verify) and bills nothing', async () => {
    const before = await ledger(user.id);
    const error = await openai()
      .videos.create({ model: badKeyModel, prompt: 'Wrong secret', seconds: seconds('5') })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    const sent = kling.requests.at(-1)!;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/videos/text2video', isAuthorized: false, token: null });
    expect(sent.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await ledger(user.id)).used).toBe(before.used);
    expect(badChannelId).toBeGreaterThan(0);
  });
});
