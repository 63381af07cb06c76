import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateVertexRegions, vertexStorageUri } from '../../src/relay/providers/vertex/api.js';
import { vertexVideoRefusal } from '../../src/relay/providers/vertex/veo.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { newVideoCaller, pollTasks, videoLedger } from '../helpers/video-fixtures.js';
import { startVertexVeoUpstream, type VertexVeoUpstream } from '../helpers/vertex-veo-upstream.js';

const quotaPerUnit = 500_000;
/** Veo 3's default price: US$0.40 per second. */
const perSecond = 0.4 * quotaPerUnit;
const model = 'veo-3.0-generate-001';
const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const other = JSON.stringify({ default: 'us-central1', storageUri: 'gs://mg-videos/veo/' });

describe('Vertex AI video settings', () => {
  it('reads storageUri from the region JSON, checks it on the form, and refuses what cannot make videos', () => {
    expect(vertexStorageUri(other)).toEqual({ uri: 'gs://mg-videos/veo/', bucket: 'mg-videos' });
    expect(vertexStorageUri('us-central1')).toBeNull();
    expect(vertexStorageUri('{"storageUri":"https://example.com/x"}')).toBeNull();
    expect(validateVertexRegions(other)).toBeNull();
    expect(validateVertexRegions('{"storageUri":"s3://bucket"}')).toContain('storageUri');
    const account = JSON.stringify({
      type: 'service_account',
      project_id: 'p',
      private_key: privateKey,
      client_email: 'a@p.iam.gserviceaccount.com',
    });
    expect(vertexVideoRefusal(7, [account], other, model)).toBeNull();
    expect(vertexVideoRefusal(7, [account], other, 'gemini-2.5-flash')).toBe('渠道 #7 不支持视频生成');
    expect(vertexVideoRefusal(7, [account], 'us-central1', model)).toContain('storageUri');
    expect(vertexVideoRefusal(7, ['AQ.vertex-key'], other, model)).toContain('服务账号');
  });
});

/**
 * Veo on a Vertex AI channel (type 41) through the task core: OpenAI's Videos API and Gemini's
 * predictLongRunning, against a local Vertex (OAuth token endpoint, aiplatform and Cloud Storage).
 * Each case checks what the client got, what Vertex received, where the token went, and the ledger.
 */
describe.each(storageKinds())('Veo on Vertex AI on %s', (kind) => {
  let server: TestServer;
  let vertex: VertexVeoUpstream;
  let channelId: number;
  let user: { id: number; tokenId: number; key: string };

  const serviceAccount = () =>
    JSON.stringify({
      type: 'service_account',
      project_id: 'demo-project',
      private_key_id: 'kid-veo',
      private_key: privateKey,
      client_email: `veo-${kind}@demo-project.iam.gserviceaccount.com`,
      token_uri: `${vertex.url}/token`,
    });
  const newCaller = (quota: number) => newVideoCaller(server, quota);
  const openai = (key = user.key) => new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const ledger = (userId: number) => videoLedger(server, userId, channelId);
  const poll = (times = 2) => pollTasks(server, times);
  const submits = () => vertex.requests.filter((request) => request.path.endsWith(':predictLongRunning'));
  const lastOperation = () => `op${submits().length}`;
  /** Every request that carried the channel's token went to the local Vertex, never to the foreign host. */
  const expectTokenKeptHome = () => {
    expect(vertex.foreignRequests.every((request) => request.headers.authorization === undefined)).toBe(true);
  };

  beforeAll(async () => {
    vertex = await startVertexVeoUpstream();
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    // The local storage stands in for a public one: addresses an upstream names are read under the SSRF protection.
    await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
    await setOption(server.ctx, 'fetch_setting.allowed_ports', '["1-65535"]');
    await setOption(
      server.ctx,
      'ModelPrice',
      JSON.stringify({ ...server.ctx.options.json<Record<string, number>>('ModelPrice'), 'gemini-2.5-flash': 0.1 }),
    );
    channelId = await createRelayChannel(server.ctx, {
      type: 41,
      key: serviceAccount(),
      baseURL: vertex.url,
      models: [model, 'gemini-2.5-flash'],
    });
    await server.ctx.storage.db.updateTable('channels').set({ other }).where('id', '=', channelId).execute();
    await server.ctx.bus.publish('channels');
    await server.relay.channels.rebuild();
    user = await newCaller(100_000_000);
  });
  afterAll(async () => {
    await server?.stop();
    await vertex?.close();
  });

  it('openai videos.create → retrieve → downloadContent: Vertex asked with a bearer token, billed per second, the video read from Cloud Storage', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({ model, prompt: 'A cat surfing at sunset', seconds: '8', size: '1280x720' });
    expect(created).toMatchObject({ object: 'video', model, status: 'queued', seconds: '8', size: '1280x720', error: null });
    const sent = submits().at(-1)!;
    expect(sent.path).toBe(`/v1/projects/demo-project/locations/us-central1/publishers/google/models/${model}:predictLongRunning`);
    expect(sent.headers.authorization).toBe(`Bearer ${vertex.token}`);
    expect(sent.headers['x-goog-api-key']).toBeUndefined();
    expect(sent.body).toEqual({
      instances: [{ prompt: 'A cat surfing at sunset' }],
      parameters: { durationSeconds: 8, aspectRatio: '16:9', resolution: '720p', sampleCount: 1, storageUri: 'gs://mg-videos/veo/' },
    });
    const charged = await ledger(user.id);
    expect(charged.used - before.used).toBe(8 * perSecond);
    expect(charged.channelUsed - before.channelUsed).toBe(8 * perSecond);
    expect(charged.quota - before.quota).toBe(-8 * perSecond);

    await poll(1);
    expect((await openai().videos.retrieve(created.id)).status).toBe('in_progress');
    const asked = vertex.requests.at(-1)!;
    expect(asked.path).toBe(`/v1/projects/demo-project/locations/us-central1/publishers/google/models/${model}:fetchPredictOperation`);
    expect(asked.body).toEqual({
      operationName: `projects/demo-project/locations/us-central1/publishers/google/models/${model}/operations/${lastOperation()}`,
    });
    await poll(1);
    const done = await openai().videos.retrieve(created.id);
    expect(done).toMatchObject({ id: created.id, status: 'completed', progress: 100, error: null });
    expect(JSON.stringify(done)).not.toContain('gs://');
    expect(JSON.stringify(done)).not.toContain(vertex.url);

    const n = submits().length;
    const content = await openai().videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await content.arrayBuffer())).toEqual(vertex.bytesOf(n));
    const read = vertex.requests.at(-1)!;
    expect(read.path).toBe(`/storage/v1/b/mg-videos/o/${encodeURIComponent(`veo/op${n}/sample_0.mp4`)}?alt=media`);
    expect(read.headers.authorization).toBe(`Bearer ${vertex.token}`);
    expect((await ledger(user.id)).used).toBe(charged.used);
    expectTokenKeptHome();
  });

  it('@google/genai generateVideos: polled with getVideosOperation and downloaded through the gateway, billed per second', async () => {
    const genai = new GoogleGenAI({ apiKey: user.key, httpOptions: { baseUrl: server.url } });
    const before = await ledger(user.id);
    let operation = await genai.models.generateVideos({
      model,
      prompt: 'A lighthouse in a storm',
      config: { durationSeconds: 6, aspectRatio: '9:16', resolution: '1080p', negativePrompt: 'fog', numberOfVideos: 1 },
    });
    expect(operation.name).toMatch(new RegExp(`^models/${model}/operations/[a-f0-9]{32}$`));
    expect(submits().at(-1)!.body).toEqual({
      instances: [{ prompt: 'A lighthouse in a storm' }],
      parameters: {
        durationSeconds: 6,
        aspectRatio: '9:16',
        resolution: '1080p',
        negativePrompt: 'fog',
        sampleCount: 1,
        storageUri: 'gs://mg-videos/veo/',
      },
    });
    expect((await ledger(user.id)).used - before.used).toBe(6 * perSecond);
    operation = await genai.operations.getVideosOperation({ operation });
    expect(operation.done).toBeFalsy();
    await poll(2);
    operation = await genai.operations.getVideosOperation({ operation });
    expect(operation.done).toBe(true);
    expect(JSON.stringify(operation)).not.toContain('gs://');
    const video = operation.response!.generatedVideos![0]!;
    const dir = await mkdtemp(join(tmpdir(), 'mg-vertex-veo-'));
    try {
      await genai.files.download({ file: video, downloadPath: join(dir, 'video.mp4') });
      expect(await readFile(join(dir, 'video.mp4'))).toEqual(vertex.bytesOf(submits().length));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect((await ledger(user.id)).used - before.used).toBe(6 * perSecond);
    expectTokenKeptHome();
  });

  it('a failed operation is refunded exactly once, and says why', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({ model, prompt: 'Something blocked', seconds: '4' });
    vertex.failing.add(lastOperation());
    expect((await ledger(user.id)).used - before.used).toBe(4 * perSecond);
    await poll(4);
    const failed = await openai().videos.retrieve(created.id);
    expect(failed).toMatchObject({
      status: 'failed',
      error: { message: 'The prompt could not be submitted: it violates the usage guidelines.' },
    });
    await poll(2);
    const after = await ledger(user.id);
    expect(after.used).toBe(before.used);
    expect(after.quota).toBe(before.quota);
    expect(after.refunded - before.refunded).toBe(4 * perSecond);
    expect(
      await openai()
        .videos.downloadContent(created.id)
        .catch((error: unknown) => error),
    ).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('an inline video (no Cloud Storage object) fails and is refunded; it is not kept in the task row', async () => {
    const before = await ledger(user.id);
    const created = await openai().videos.create({ model, prompt: 'Inline', seconds: '4' });
    vertex.inline.add(lastOperation());
    await poll(2);
    const failed = await openai().videos.retrieve(created.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toMatch(/storageUri/);
    const row = await server.ctx.storage.db
      .selectFrom('tasks')
      .select(['data', 'fail_reason'])
      .where('task_id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.data.length).toBeLessThan(100);
    const after = await ledger(user.id);
    expect(after.used).toBe(before.used);
    expect(after.refunded - before.refunded).toBe(4 * perSecond);
  });

  it('a non-Veo model of the Vertex channel is refused with nothing billed and nothing sent', async () => {
    const sentBefore = submits().length;
    const before = await ledger(user.id);
    const error = await openai()
      .videos.create({ model: 'gemini-2.5-flash', prompt: 'x', seconds: '4' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toMatch(/does not generate videos|不支持视频生成/);
    const raw = await fetch(`${server.url}/v1beta/models/gemini-2.5-flash:predictLongRunning`, {
      method: 'POST',
      headers: { 'x-goog-api-key': user.key, 'content-type': 'application/json' },
      body: JSON.stringify({ instances: [{ prompt: 'x' }], parameters: { durationSeconds: 4 } }),
    });
    expect(raw.status).toBe(400);
    expect(submits().length).toBe(sentBefore);
    const after = await ledger(user.id);
    expect(after.used).toBe(before.used);
    expect(after.quota).toBe(before.quota);
  });

  it('the token never leaves Google: a storage redirect elsewhere is followed without it; an object outside the bucket is a 502, never asked', async () => {
    const moved = await openai().videos.create({ model, prompt: 'Moved', seconds: '4' });
    vertex.uris.set(lastOperation(), 'gs://mg-videos/veo/moved');
    const outside = await openai().videos.create({ model, prompt: 'Outside', seconds: '4' });
    vertex.uris.set(lastOperation(), 'gs://someone-elses-bucket/secret.mp4');
    await poll(2);
    const foreignBefore = vertex.foreignRequests.length;
    const content = await openai().videos.downloadContent(moved.id);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(vertex.bytesOf(99));
    expect(vertex.foreignRequests).toHaveLength(foreignBefore + 1);
    expect(vertex.foreignRequests.at(-1)!.headers.authorization).toBeUndefined();
    const storageBefore = vertex.requests.filter((request) => request.path.startsWith('/storage/')).length;
    const error = await openai()
      .videos.downloadContent(outside.id)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect(vertex.requests.filter((request) => request.path.startsWith('/storage/')).length).toBe(storageBefore);
    expectTokenKeptHome();
  });
});
