import http from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { listenLocal } from '../helpers/local-http.js';
import { newVideoCaller, pollTasks } from '../helpers/video-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { startVeoUpstream, type VeoUpstream } from '../helpers/veo-upstream.js';

const model = 'veo-3.0-generate-001';

/**
 * Videos from a hostile upstream: the addresses it names for its videos are the upstream's word, so
 * reading them must not reach the gateway's own network (a cloud metadata service) for a caller.
 */
describe.each(storageKinds())('videos from a hostile upstream on %s', (kind) => {
  let server: TestServer;
  let veo: VeoUpstream;
  let user: { id: number; tokenId: number; key: string };
  /** What a hostile upstream would point at: a metadata-like service on the gateway's host. */
  let internal: http.Server;
  let internalUrl: string;
  const reads: string[] = [];

  const openai = () => new OpenAI({ apiKey: user.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
  const operationCount = () => veo.requests.filter((request) => request.path.endsWith(':predictLongRunning')).length;
  const statusOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 200,
      (error: unknown) => (error as InstanceType<typeof OpenAI.APIError>).status,
    );

  beforeAll(async () => {
    veo = await startVeoUpstream('AIza-veo');
    internal = http.createServer((req, res) => {
      reads.push(req.url ?? '');
      if (req.url?.startsWith('/page'))
        return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<script>steal(document.cookie)</script>');
      res.writeHead(200, { 'content-type': 'video/mp4' }).end('iam-credentials');
    });
    internalUrl = await listenLocal(internal);
    server = await startTestServer({ kind, env: { TASK_POLL_INTERVAL: '0' } });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await createRelayChannel(server.ctx, { type: 24, key: 'AIza-veo', baseURL: veo.url, models: [model] });
    user = await newVideoCaller(server, 100_000_000);
    // Every port allowed: the guard refuses the internal server for its address, not its port.
    await setOption(server.ctx, 'fetch_setting.allowed_ports', '["1-65535"]');
  });
  afterAll(async () => {
    await server?.stop();
    await veo?.close();
    await new Promise<void>((resolve) => internal?.close(() => resolve()));
  });

  it("never reads a video address on the gateway's own network, named or redirected to, unless the root allows private addresses", async () => {
    const named = await openai().videos.create({ model, prompt: 'Named', seconds: '4' });
    veo.uris.set(`op${operationCount()}`, `${internalUrl}/latest/meta-data/`);
    const byName = await openai().videos.create({ model, prompt: 'By name', seconds: '4' });
    veo.uris.set(`op${operationCount()}`, `${internalUrl.replace('127.0.0.1', 'localhost')}/latest/meta-data/`);
    // The channel's own download answers a redirect to its storage, here on this host too.
    const redirected = await openai().videos.create({ model, prompt: 'Redirected', seconds: '4' });
    await pollTasks(server, 2);
    const storageBefore = veo.storageRequests.length;
    for (const video of [named, byName, redirected]) expect(await statusOf(openai().videos.downloadContent(video.id)), video.id).toBe(502);
    expect(reads).toEqual([]);
    expect(veo.storageRequests).toHaveLength(storageBefore);
    // The channel's own host is asked as the relay asks it (with its key): only the address it redirected to was refused.
    expect(veo.requests.at(-1)!.path).toContain(':download');

    await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
    try {
      const content = await openai().videos.downloadContent(named.id);
      expect(Buffer.from(await content.arrayBuffer()).toString()).toBe('iam-credentials');
      expect(reads).toEqual(['/latest/meta-data/']);
      expect(await statusOf(openai().videos.downloadContent(redirected.id))).toBe(200);
      expect(veo.storageRequests).toHaveLength(storageBefore + 1);
    } finally {
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'false');
    }
  });

  it("never answers the upstream's own content type: a page it calls a video is no page on the gateway's origin", async () => {
    const video = await openai().videos.create({ model, prompt: 'A page', seconds: '4' });
    veo.uris.set(`op${operationCount()}`, `${internalUrl}/page.mp4`);
    await pollTasks(server, 2);
    await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'true');
    try {
      // The Gemini download takes the key in the query: a link a browser opens as a page.
      const id = video.id.replace(/^video_/, '');
      const opened = await fetch(`${server.url}/v1beta/files/${id}:download?alt=media&key=${user.key}`);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('content-type')).toBe('video/mp4');
      expect(opened.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await opened.text()).toContain('<script>');
      const content = await openai().videos.downloadContent(video.id);
      expect(content.headers.get('content-type')).toBe('video/mp4');
    } finally {
      await setOption(server.ctx, 'fetch_setting.allow_private_ip', 'false');
    }
  });
});
