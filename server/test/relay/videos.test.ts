import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, createRelayToken, setOption } from '../helpers/relay-fixtures.js';
import { newVideoCaller, pollTasks, videoLedger } from '../helpers/video-fixtures.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { startVeoUpstream, type VeoUpstream } from '../helpers/veo-upstream.js';

const quotaPerUnit = 500_000;
/** Veo 3's default price: US$0.40 per second. */
const perSecond = 0.4 * quotaPerUnit;
const model = 'veo-3.0-generate-001';

/**
 * Video generation through the task core: OpenAI's Videos API (the openai SDK's `videos` client) and
 * Gemini's predictLongRunning (@google/genai's generateVideos) on a Gemini channel speaking Veo. Each
 * case checks what the client got, what the upstream received, and the ledger to the quota unit.
 */
describe.each(storageKinds())('videos on %s', (kind) => {
  let server: TestServer;
  let veo: VeoUpstream;
  let channelId: number;
  let user: { id: number; tokenId: number; key: string };
  let other: { id: number; tokenId: number; key: string };

  const newCaller = (quota: number) => newVideoCaller(server, quota);
  const openai = (key = user.key) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const ledger = (userId: number) => videoLedger(server, userId, channelId);
  const poll = (times = 2) => pollTasks(server, times);

  beforeAll(async () => {
    veo = await startVeoUpstream('AIza-veo');
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    // The local storage stands in for a public one: addresses an upstream names are read under the SSRF protection.
    await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
    await setOption(server.ctx, 'fetch_setting.allowed_ports', '["1-65535"]');
    channelId = await createRelayChannel(server.ctx, { type: 24, key: 'AIza-veo', baseURL: veo.url, models: [model] });
    user = await newCaller(100_000_000);
    other = await newCaller(100_000_000);
  });
  afterAll(async () => {
    await server?.stop();
    await veo?.close();
  });

  it('openai videos.create → retrieve → downloadContent: Veo asked, billed per second, the bytes proxied, the key kept home', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({ model, prompt: 'A cat surfing at sunset', seconds: '8', size: '1280x720' });
    expect(created).toMatchObject({
      object: 'video',
      model,
      status: 'queued',
      seconds: '8',
      size: '1280x720',
      prompt: 'A cat surfing at sunset',
      error: null,
    });
    expect(created.id).toMatch(/^video_[a-f0-9]{32}$/);
    const sent = veo.requests.at(-1)!;
    expect(sent.path).toBe(`/v1beta/models/${model}:predictLongRunning`);
    expect(sent.body).toEqual({
      instances: [{ prompt: 'A cat surfing at sunset' }],
      parameters: { durationSeconds: 8, aspectRatio: '16:9', resolution: '720p' },
    });
    // Billed at submit: 8 seconds × US$0.40.
    const charged = await ledger(user.id);
    expect(charged.used - before.used).toBe(8 * perSecond);
    expect(charged.channelUsed - before.channelUsed).toBe(8 * perSecond);
    expect(charged.quota - before.quota).toBe(-8 * perSecond);

    await poll(1);
    expect((await openai().videos.retrieve(created.id)).status).toBe('in_progress');
    await poll(1);
    const done = await openai().videos.retrieve(created.id);
    expect(done).toMatchObject({ id: created.id, status: 'completed', progress: 100, error: null });
    expect(JSON.stringify(done)).not.toContain(veo.url);

    const storageBefore = veo.storageRequests.length;
    const content = await openai().videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const n = Number(/op(\d+)/.exec(veo.requests.find((request) => request.path.includes('/operations/'))!.path)![1]);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(veo.bytesOf(n));
    // The channel's key went to the channel's host, not to the storage it redirected to.
    expect(veo.requests.at(-1)!.path).toContain(':download');
    expect(veo.requests.at(-1)!.headers['x-goog-api-key']).toBe('AIza-veo');
    expect(veo.storageRequests).toHaveLength(storageBefore + 1);
    expect(veo.storageRequests.at(-1)!.headers['x-goog-api-key']).toBeUndefined();
    expect((await ledger(user.id)).used).toBe(charged.used);
  });

  it("passes a player's Range on to the storage and answers 206 with its Content-Range", async () => {
    const created = await openai().videos.create({ model, prompt: 'Seekable', seconds: '4' });
    await poll(2);
    const n = Number(/op(\d+)/.exec(veo.requests.filter((request) => request.path.includes('/operations/op')).at(-1)!.path)![1]);
    const whole = veo.bytesOf(n);
    const url = `${server.url}/v1/videos/${created.id}/content`;
    const get = (range?: string) =>
      fetch(url, { headers: { authorization: `Bearer ${user.key}`, ...(range === undefined ? {} : { range }) } });

    const all = await get();
    expect(all.status).toBe(200);
    expect(all.headers.get('accept-ranges')).toBe('bytes');
    expect(all.headers.get('content-length')).toBe(String(whole.length));
    expect(Buffer.from(await all.arrayBuffer())).toEqual(whole);

    const part = await get('bytes=100-199');
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${whole.length}`);
    expect(part.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(100, 200));
    // The range went with the redirect to the storage; the key did not.
    expect(veo.storageRequests.at(-1)!.headers.range).toBe('bytes=100-199');
    expect(veo.storageRequests.at(-1)!.headers['x-goog-api-key']).toBeUndefined();

    const tail = await get('bytes=-10');
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(whole.subarray(whole.length - 10));
    // The SDK's own call with a Range header.
    const sdk = await openai().videos.downloadContent(created.id, {}, { headers: { range: `bytes=${whole.length - 5}-` } });
    expect(Buffer.from(await sdk.arrayBuffer())).toEqual(whole.subarray(whole.length - 5));

    const past = await get(`bytes=${whole.length + 10}-`);
    expect(past.status).toBe(416);
    expect((await past.json()).error).toMatchObject({ code: 'range_not_satisfiable', type: 'invalid_request_error' });
    // Several ranges, another unit or junk: the whole video, and nothing of it reaches the storage.
    for (const ignored of ['bytes=0-1,5-6', 'items=0-1', 'bytes=abc', `bytes=0-${'9'.repeat(80)}`]) {
      const answer = await get(ignored);
      expect(answer.status).toBe(200);
      expect(Buffer.from(await answer.arrayBuffer())).toEqual(whole);
      expect(veo.storageRequests.at(-1)!.headers.range).toBeUndefined();
    }
  });

  it("lists the caller's own videos only, in pages, and deletes a finished one", async () => {
    const first = await openai().videos.create({ model, prompt: 'First', seconds: '4' });
    const second = await openai().videos.create({ model, prompt: 'Second', seconds: '4' });
    await openai(other.key).videos.create({ model, prompt: 'Not yours', seconds: '4' });
    const page = await openai().videos.list({ limit: 1 });
    expect(page.data.map((video) => video.id)).toEqual([second.id]);
    const all: string[] = [];
    for await (const video of openai().videos.list({ limit: 1 })) all.push(video.id);
    expect(all.slice(0, 2)).toEqual([second.id, first.id]);
    expect(all.every((id) => id !== undefined)).toBe(true);
    const otherIds: string[] = [];
    for await (const video of openai(other.key).videos.list()) otherIds.push(video.id);
    expect(otherIds).not.toContain(first.id);

    // Another user's video is unknown: retrieve, content and delete all 404.
    for (const attempt of [
      () => openai(other.key).videos.retrieve(first.id),
      () => openai(other.key).videos.downloadContent(first.id),
      () => openai(other.key).videos.delete(first.id),
    ]) {
      expect(await attempt().catch((error: unknown) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    }
    // Unfinished: not deleted.
    expect(
      await openai()
        .videos.delete(first.id)
        .catch((error: unknown) => error),
    ).toBeInstanceOf(OpenAI.BadRequestError);
    await poll(2);
    expect(await openai().videos.delete(first.id)).toEqual({ id: first.id, object: 'video.deleted', deleted: true });
    expect(
      await openai()
        .videos.retrieve(first.id)
        .catch((error: unknown) => error),
    ).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('a failed video is refunded exactly once, and says why', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({
      model,
      prompt: 'Something blocked',
      seconds: '6' as OpenAI.Videos.VideoSeconds,
      size: '720x1280',
    });
    const operation = veo.requests.filter((request) => request.path.endsWith(':predictLongRunning')).length;
    veo.failing.add(`op${operation}`);
    expect(veo.requests.at(-1)!.body.parameters).toEqual({ durationSeconds: 6, aspectRatio: '9:16', resolution: '720p' });
    expect((await ledger(user.id)).used - before.used).toBe(6 * perSecond);
    await poll(4);
    const failed = await openai().videos.retrieve(created.id);
    expect(failed).toMatchObject({ status: 'failed', error: { message: 'The prompt was blocked by the safety filter.' } });
    const after = await ledger(user.id);
    expect(after.used).toBe(before.used);
    expect(after.quota).toBe(before.quota);
    expect(after.refunded - before.refunded).toBe(6 * perSecond);
    expect(
      await openai()
        .videos.downloadContent(created.id)
        .catch((error: unknown) => error),
    ).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('@google/genai generateVideos: polled with getVideosOperation and downloaded through the gateway, billed per second', async () => {
    const genai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: server.url } });
    const before = await ledger(user.id);
    let operation = await genai.models.generateVideos({
      model,
      prompt: 'A lighthouse in a storm',
      config: { durationSeconds: 6, aspectRatio: '16:9', resolution: '1080p', numberOfVideos: 1 },
    });
    expect(operation.name).toMatch(new RegExp(`^models/${model}/operations/[a-f0-9]{32}$`));
    expect(veo.requests.at(-1)!.body.parameters).toMatchObject({ durationSeconds: 6, aspectRatio: '16:9', resolution: '1080p' });
    expect((await ledger(user.id)).used - before.used).toBe(6 * perSecond);
    operation = await genai.operations.getVideosOperation({ operation });
    expect(operation.done).toBeFalsy();
    await poll(2);
    operation = await genai.operations.getVideosOperation({ operation });
    expect(operation.done).toBe(true);
    const video = operation.response!.generatedVideos![0]!;
    const dir = await mkdtemp(join(tmpdir(), 'mg-veo-'));
    try {
      // Without ServerAddress the video is named `files/{id}`; with it, an absolute URI on it. Both download.
      expect(video.video!.uri).toMatch(/^files\/[a-f0-9]{32}$/);
      await genai.files.download({ file: video, downloadPath: join(dir, 'video.mp4') });
      const n = Number(/op(\d+)/.exec(veo.requests.filter((request) => request.path.includes('/operations/op')).at(-1)!.path)![1]);
      expect(await readFile(join(dir, 'video.mp4'))).toEqual(veo.bytesOf(n));
      await setOption(server.ctx, 'ServerAddress', server.url);
      const named = (await genai.operations.getVideosOperation({ operation })).response!.generatedVideos![0]!;
      expect(named.video!.uri).toBe(`${server.url}/v1beta/files/${video.video!.uri!.slice('files/'.length)}:download?alt=media`);
      await genai.files.download({ file: named, downloadPath: join(dir, 'named.mp4') });
      expect(await readFile(join(dir, 'named.mp4'))).toEqual(veo.bytesOf(n));
    } finally {
      await setOption(server.ctx, 'ServerAddress', '');
      await rm(dir, { recursive: true, force: true });
    }
    // Another user's operation is unknown.
    const stranger = new GoogleGenAI({ apiKey: other.key, httpOptions: { baseUrl: server.url } });
    expect(await stranger.operations.getVideosOperation({ operation }).catch((error: unknown) => error)).toBeInstanceOf(Error);
  });

  it('refuses bad input with a 400 before the upstream is asked, and answers 403 while tasks are off', async () => {
    const sentBefore = veo.requests.length;
    const usedBefore = (await ledger(user.id)).used;
    const bad: Array<Record<string, unknown>> = [
      { model, prompt: 'x', seconds: '0' },
      { model, prompt: 'x', seconds: '99' },
      { model, prompt: 'x', size: '999x1' },
      { model, prompt: '' },
      { prompt: 'no model' },
    ];
    for (const body of bad) {
      const error = await openai()
        .videos.create(body as never)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    }
    const image = await toFile(Buffer.from('not an image'), 'reference.txt', { type: 'text/plain' });
    expect(
      await openai()
        .videos.create({ model, prompt: 'x', input_reference: image })
        .catch((caught: unknown) => caught),
    ).toBeInstanceOf(OpenAI.BadRequestError);
    expect(
      await openai()
        .videos.create({ model: 'no-such-video-model', prompt: 'x' })
        .catch((caught: unknown) => caught),
    ).toBeInstanceOf(OpenAI.APIError);
    const raw = await fetch(`${server.url}/v1beta/models/${model}:predictLongRunning`, {
      method: 'POST',
      headers: { 'x-goog-api-key': user.key, 'content-type': 'application/json' },
      body: JSON.stringify({ instances: [{ prompt: 'x' }], parameters: { sampleCount: 2 } }),
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
    expect(veo.requests.length).toBe(sentBefore);
    expect((await ledger(user.id)).used).toBe(usedBefore);

    await setOption(server.ctx, 'TaskEnabled', 'false');
    try {
      expect(
        await openai()
          .videos.create({ model, prompt: 'x' })
          .catch((caught: unknown) => caught),
      ).toBeInstanceOf(OpenAI.PermissionDeniedError);
    } finally {
      await setOption(server.ctx, 'TaskEnabled', 'true');
    }
  });

  it("the task log lists a video with its length and a console preview; the upstream's address stays on the server", async () => {
    const { client: owner, userId } = await signedInClient(server, { username: `viewer-${kind}` });
    const { client: stranger } = await signedInClient(server, { username: `stranger-${kind}` });
    const { client: admin } = await signedInClient(server, { username: `admin-${kind}`, role: 10 });
    const token = await createRelayToken(server.ctx, userId, { remainQuota: 100_000_000 });
    await server.ctx.storage.db.updateTable('users').set({ quota: 100_000_000 }).where('id', '=', userId).execute();
    const created = await openai(token.apiKey).videos.create({ model, prompt: 'Logged', seconds: '8' });
    await poll(2);
    const log = await owner.get(`/api/task/self?task_id=${created.id}`);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({
      task_id: created.id,
      platform: 'video',
      status: 'SUCCESS',
      video_seconds: 8,
      data: '',
      preview_url: `/api/task/video/${created.id}/content`,
    });
    expect(log.text).not.toContain(veo.url);
    expect((await admin.get(`/api/task/?task_id=${created.id}`)).text).not.toContain(veo.url);
    const n = Number(/op(\d+)/.exec(veo.requests.filter((request) => request.path.includes('/operations/op')).at(-1)!.path)![1]);
    const preview = await owner.get(log.body.data[0].preview_url);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('video/mp4');
    expect(preview.text).toBe(veo.bytesOf(n).toString('utf8'));
    // The console's player seeks with a Range.
    const seek = await owner.get(log.body.data[0].preview_url, { headers: { range: 'bytes=16-31' } });
    expect(seek.status).toBe(206);
    expect(seek.headers.get('content-range')).toBe(`bytes 16-31/${veo.bytesOf(n).length}`);
    expect(seek.text).toBe(veo.bytesOf(n).subarray(16, 32).toString('utf8'));
    const past = await owner.get(log.body.data[0].preview_url, { headers: { range: 'bytes=999999-', 'accept-language': 'en' } });
    expect(past.status).toBe(416);
    expect(past.body).toEqual({ success: false, message: 'The requested range is outside the video', data: null });
    expect((await admin.get(log.body.data[0].preview_url)).status).toBe(200);
    const refused = await stranger.get(log.body.data[0].preview_url);
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ success: false });
    expect((await server.client().get(log.body.data[0].preview_url)).status).toBe(401);
  });

  it('a video URI the upstream points elsewhere is fetched without the key; one that is no URL is a 502, never a 500', async () => {
    const foreign = await openai().videos.create({ model, prompt: 'Foreign', seconds: '4' });
    veo.uris.set(
      `op${veo.requests.filter((request) => request.path.endsWith(':predictLongRunning')).length}`,
      `${veo.storageUrl}/bucket/f77.mp4`,
    );
    const broken = await openai().videos.create({ model, prompt: 'Broken', seconds: '4' });
    veo.uris.set(`op${veo.requests.filter((request) => request.path.endsWith(':predictLongRunning')).length}`, 'http://[::1');
    await poll(2);
    const content = await openai().videos.downloadContent(foreign.id);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(veo.bytesOf(77));
    expect(veo.storageRequests.at(-1)!.headers['x-goog-api-key']).toBeUndefined();
    const error = await openai()
      .videos.downloadContent(broken.id)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
  });

  it('an image reference goes to Veo as the first frame', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    await openai().videos.create({ model, prompt: 'Animate this', input_reference: await toFile(png, 'frame.png', { type: 'image/png' }) });
    expect(veo.requests.at(-1)!.body.instances[0].image).toEqual({ bytesBase64Encoded: png.toString('base64'), mimeType: 'image/png' });
  });
});
