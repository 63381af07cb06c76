import { crc32, deflateSync } from 'node:zlib';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeQuota } from '../../src/relay/billing/quota.js';
import { clampUsage } from '../../src/relay/billing/usage-count.js';
import { createRelayChannel, createRelayToken } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startFixtureUpstream, type FixtureRequest, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, quotaOfLog } from './sdk-setup.js';

/** A real w×h RGBA PNG (signature, IHDR, one IDAT, IEND, with their CRCs). */
function png(width: number, height: number, shade = 0x80): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  const rows = Buffer.alloc(height * (1 + width * 4), shade);
  for (let row = 0; row < height; row += 1) rows[row * (1 + width * 4)] = 0; // filter: none
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The multipart form the upstream received, parsed by undici. */
const formOf = async (request: FixtureRequest) =>
  new Response(new Uint8Array(request.rawBody), { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
const bytesOf = async (value: FormDataEntryValue | null) => Buffer.from(await (value as File).arrayBuffer());

const imageAnswer = (count: number, usage?: Record<string, unknown>) =>
  JSON.stringify({
    created: 1_700_000_000,
    data: Array.from({ length: count }, (_, i) => ({ b64_json: png(2, 2, i).toString('base64') })),
    ...(usage ? { usage } : {}),
  });

/**
 * POST /v1/images/edits and /v1/images/variations (docs/relay.md "Images") through the official
 * openai client, to local upstreams speaking OpenAI's and Azure's image wire. Default prices:
 * dall-e-2 ModelPrice US$0.02 an image (10,000 quota); gpt-image-1 ModelRatio 2.5, completion ratio 8.
 */
describe('image edits and variations', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let azure: FixtureUpstream;
  let client: OpenAI;
  let azureClient: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;
  let azureChannelId: number;

  beforeAll(async () => {
    upstream = await startFixtureUpstream();
    azure = await startFixtureUpstream();
    server = await startTestServer();
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, {
      key: 'sk-upstream',
      baseURL: upstream.url,
      models: ['dall-e-2', 'gpt-image-1'],
      modelMapping: { 'dall-e-2': 'dall-e-2-2024' },
    });
    azureChannelId = await createRelayChannel(server.ctx, {
      type: 3,
      key: 'azure-key',
      baseURL: `${azure.url}/`,
      models: ['gpt-image-1', 'dall-e-2'],
      groups: ['azure'],
    });
    await server.ctx.options.set('UserUsableGroups', JSON.stringify({ default: 'default', azure: 'azure' }));
    const azureToken = await createRelayToken(server.ctx, caller.userId, { group: 'azure' });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    azureClient = new OpenAI({ apiKey: azureToken.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
    await azure?.close();
  });

  /** The newest consume log row on a channel, after the flush. */
  const lastLog = async (onChannel = channelId) => {
    const state = await billedState(server.ctx, { ...caller, channelId: onChannel });
    return { log: state.logs[0]!, count: state.logs.length, channelUsed: state.channelUsed };
  };

  it('an edit with a mask (dall-e-2) forwards every field and bills ModelPrice × n', async () => {
    const image = png(16, 16);
    const mask = png(16, 16, 0);
    upstream.reply({ status: 200, contentType: 'application/json', body: imageAnswer(3) });
    const result = await client.images.edit({
      image: await toFile(image, 'photo.png', { type: 'image/png' }),
      mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
      prompt: 'A sunlit lounge with a flamingo',
      model: 'dall-e-2',
      n: 3,
      size: '256x256',
      response_format: 'b64_json',
      user: 'user-7',
    });
    expect(result.data).toHaveLength(3);
    expect(Buffer.from(result.data![0]!.b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');

    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/images/edits');
    expect(sent.headers.authorization).toBe('Bearer sk-upstream');
    expect(String(sent.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const form = await formOf(sent);
    // The channel's model mapping gives the upstream its own name.
    expect(Object.fromEntries(['model', 'prompt', 'n', 'size', 'response_format', 'user'].map((name) => [name, form.get(name)]))).toEqual({
      model: 'dall-e-2-2024',
      prompt: 'A sunlit lounge with a flamingo',
      n: '3',
      size: '256x256',
      response_format: 'b64_json',
      user: 'user-7',
    });
    expect((form.get('image') as File).name).toBe('photo.png');
    expect((form.get('image') as File).type).toBe('image/png');
    expect((await bytesOf(form.get('image'))).equals(image)).toBe(true);
    expect((await bytesOf(form.get('mask'))).equals(mask)).toBe(true);

    const { log } = await lastLog();
    expect(log).toMatchObject({ model_name: 'dall-e-2', quota: 3 * 10_000 });
    expect(log.other).toMatchObject({ model_price: 0.02 });
  });

  it('a variation bills per image and keeps the single image', async () => {
    const image = png(8, 8, 0x20);
    upstream.reply({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ created: 1, data: [{ url: 'https://img.example/1.png' }, { url: 'https://img.example/2.png' }] }),
    });
    const result = await client.images.createVariation({
      image: await toFile(image, 'v.png', { type: 'image/png' }),
      model: 'dall-e-2',
      n: 2,
      size: '512x512',
    });
    expect(result.data?.map((item) => item.url)).toEqual(['https://img.example/1.png', 'https://img.example/2.png']);
    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/images/variations');
    const form = await formOf(sent);
    expect(form.get('model')).toBe('dall-e-2-2024');
    expect(form.get('n')).toBe('2');
    expect(form.get('size')).toBe('512x512');
    expect(form.get('prompt')).toBeNull();
    expect((await bytesOf(form.get('image'))).equals(image)).toBe(true);
    const { log } = await lastLog();
    expect(log).toMatchObject({ model_name: 'dall-e-2', quota: 2 * 10_000 });
  });

  it('gpt-image-1 with several images (image[]) bills its token usage, as the upstream reported it', async () => {
    const images = [png(4, 4, 1), png(4, 4, 2), png(4, 4, 3)];
    const usage = {
      total_tokens: 1_300,
      input_tokens: 300,
      output_tokens: 1_000,
      input_tokens_details: { text_tokens: 40, image_tokens: 260 },
    };
    upstream.reply({ status: 200, contentType: 'application/json', body: imageAnswer(1, usage) });
    const result = await client.images.edit({
      image: await Promise.all(images.map((bytes, i) => toFile(bytes, `in-${i}.png`, { type: 'image/png' }))),
      prompt: 'Put these three into one gift basket',
      model: 'gpt-image-1',
      quality: 'low',
      background: 'transparent',
      output_format: 'png',
    });
    expect(result.usage).toEqual(usage);
    const form = await formOf(upstream.requests.at(-1)!);
    expect(form.get('model')).toBe('gpt-image-1');
    expect(form.get('quality')).toBe('low');
    expect(form.get('background')).toBe('transparent');
    const sentImages = form.getAll('image[]') as File[];
    expect(sentImages.map((file) => file.name)).toEqual(['in-0.png', 'in-1.png', 'in-2.png']);
    for (const [i, file] of sentImages.entries()) expect(Buffer.from(await file.arrayBuffer()).equals(images[i]!)).toBe(true);

    const { log } = await lastLog();
    // Image input at twice the text price (US$10 vs 5 per 1M): round(2.5 × (40 + 260 × 2 + 1,000 × 8)) = 21,400.
    expect(log).toMatchObject({ model_name: 'gpt-image-1', prompt_tokens: 300, completion_tokens: 1_000, quota: 21_400 });
    expect(log.other).toMatchObject({ model_ratio: 2.5, completion_ratio: 8, image: true, image_input: 260, image_ratio: 2 });
    expect(log.content).toContain('图片输入倍率 2');
    expect(quotaOfLog(log, log.other)).toBe(21_400);
  });

  it('an Azure channel gets the deployment path, api-version and api-key, and bills gpt-image-1 by usage', async () => {
    const usage = { total_tokens: 110, input_tokens: 10, output_tokens: 100, input_tokens_details: { text_tokens: 4, image_tokens: 6 } };
    azure.reply({ status: 200, contentType: 'application/json', body: imageAnswer(1, usage) });
    await azureClient.images.edit({
      image: await toFile(png(4, 4), 'a.png', { type: 'image/png' }),
      prompt: 'Make it blue',
      model: 'gpt-image-1',
    });
    const sent = azure.requests.at(-1)!;
    expect(sent.url).toBe('/openai/deployments/gpt-image-1/images/edits?api-version=2025-04-01-preview');
    expect(sent.headers['api-key']).toBe('azure-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect((await formOf(sent)).get('prompt')).toBe('Make it blue');
    const { log } = await lastLog(azureChannelId);
    expect(log).toMatchObject({
      model_name: 'gpt-image-1',
      prompt_tokens: 10,
      completion_tokens: 100,
      quota: Math.round(2.5 * (4 + 6 * 2 + 800)),
    });

    azure.reply({ status: 200, contentType: 'application/json', body: imageAnswer(1) });
    const viaQuery = new OpenAI({
      apiKey: azureClient.apiKey,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
      defaultQuery: { 'api-version': '2024-10-21' },
    });
    await viaQuery.images.createVariation({ image: await toFile(png(4, 4), 'a.png', { type: 'image/png' }), model: 'dall-e-2' });
    expect(azure.requests.at(-1)!.url).toBe('/openai/deployments/dall-e-2/images/variations?api-version=2024-10-21');
    expect((await lastLog(azureChannelId)).log).toMatchObject({ model_name: 'dall-e-2', quota: 10_000 });
  });

  it("a streamed gpt-image-1 edit passes the events through and bills the completed event's usage", async () => {
    const events = [
      { type: 'image_edit.partial_image', b64_json: png(2, 2).toString('base64'), partial_image_index: 0 },
      {
        type: 'image_edit.completed',
        b64_json: png(2, 2).toString('base64'),
        usage: { input_tokens: 20, output_tokens: 50, total_tokens: 70, input_tokens_details: { text_tokens: 20, image_tokens: 0 } },
      },
    ];
    upstream.reply({
      status: 200,
      contentType: 'text/event-stream',
      body: events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(''),
    });
    const stream = await client.images.edit({
      image: await toFile(png(4, 4), 'a.png'),
      prompt: 'stream it',
      model: 'gpt-image-1',
      stream: true,
      partial_images: 1,
    });
    const seen: string[] = [];
    for await (const event of stream) seen.push(event.type);
    expect(seen).toEqual(['image_edit.partial_image', 'image_edit.completed']);
    expect((await formOf(upstream.requests.at(-1)!)).get('stream')).toBe('true');
    const { log } = await lastLog();
    expect(log).toMatchObject({ model_name: 'gpt-image-1', prompt_tokens: 20, completion_tokens: 50, quota: Math.round(2.5 * (20 + 400)) });
    expect(log.other.image_input).toBeUndefined();
  });

  it('an upstream refusal reaches the client in OpenAI shape and bills nothing', async () => {
    const before = (await lastLog()).count;
    upstream.reply({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({
        error: { message: 'Invalid image: must be a PNG.', type: 'invalid_request_error', param: 'image', code: null },
      }),
    });
    const error = await client.images
      .edit({ image: await toFile(Buffer.from('not a png'), 'a.png'), prompt: 'x', model: 'dall-e-2' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('Invalid image: must be a PNG.');
    expect((await lastLog()).count).toBe(before);
  });
});

describe('the quota formula with image input tokens', () => {
  const gptImage = {
    isKnown: true,
    quotaType: 0 as const,
    modelRatio: 2.5,
    completionRatio: 8,
    cacheRatio: 1,
    modelPrice: -1,
    imageRatio: 2,
  };

  it('prices image tokens at modelRatio × imageRatio and the rest of the prompt as text', () => {
    expect(computeQuota(gptImage, 1, { promptTokens: 300, completionTokens: 1_000, cachedTokens: 0, imageInputTokens: 260 }, 500_000)).toBe(
      21_400,
    );
    // Without an image ratio image input bills like text.
    expect(
      computeQuota(
        { ...gptImage, imageRatio: undefined },
        1,
        { promptTokens: 300, completionTokens: 0, cachedTokens: 0, imageInputTokens: 260 },
        500_000,
      ),
    ).toBe(750);
  });

  it('clamps image tokens to the prompt left after cache and audio, in the formula and in clampUsage', () => {
    expect(computeQuota(gptImage, 1, { promptTokens: 100, completionTokens: 0, cachedTokens: 0, imageInputTokens: 5_000 }, 500_000)).toBe(
      500,
    );
    expect(clampUsage({ promptTokens: 100, completionTokens: 0, cachedTokens: 30, audioInputTokens: 20, imageInputTokens: 5_000 })).toEqual(
      { promptTokens: 100, completionTokens: 0, cachedTokens: 30, audioInputTokens: 20, imageInputTokens: 50 },
    );
    const clean = { promptTokens: 100, completionTokens: 1, cachedTokens: 0, imageInputTokens: 100 };
    expect(clampUsage(clean)).toBe(clean);
  });
});
