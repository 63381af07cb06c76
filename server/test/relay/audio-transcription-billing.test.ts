import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeQuota } from '../../src/relay/billing/quota.js';
import { countTextTokens } from '../../src/relay/billing/token-count.js';
import { clampUsage } from '../../src/relay/billing/usage-count.js';
import { garbage, mp3Frames, pcmWav } from '../helpers/audio-bytes.js';
import { createRelayChannel } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { startFixtureUpstream, type FixtureRequest, type FixtureUpstream } from '../providers/helpers/fixture-upstream.js';
import { billedState, createSdkCaller, quotaOfLog } from './sdk-setup.js';

/**
 * POST /v1/audio/transcriptions billed by the audio's length (docs/relay.md "Audio"), through the
 * official openai client, to a local upstream speaking OpenAI's transcription wire.
 * Default prices: whisper-1 ModelRatio 15 and audio ratio 0.2; gpt-4o-transcribe 1.25, completion 4,
 * audio 2.4. A duration counts 1,000 tokens a minute of started seconds.
 */
describe('audio transcriptions: billing by duration and by tokens', () => {
  let server: TestServer;
  let upstream: FixtureUpstream;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  let channelId: number;

  beforeAll(async () => {
    upstream = await startFixtureUpstream();
    server = await startTestServer();
    caller = await createSdkCaller(server.ctx);
    channelId = await createRelayChannel(server.ctx, {
      key: 'sk-upstream',
      baseURL: upstream.url,
      models: ['whisper-1', 'gpt-4o-transcribe'],
    });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  /** The multipart form the upstream received, parsed by undici. */
  const formOf = async (request: FixtureRequest) =>
    new Response(new Uint8Array(request.rawBody), { headers: { 'content-type': String(request.headers['content-type']) } }).formData();

  /** The newest consume log row of the caller on the channel, after the flush; and the counters agree. */
  const lastBill = async () => {
    const state = await billedState(server.ctx, { ...caller, channelId });
    const sum = state.logs.reduce((total, log) => total + log.quota, 0);
    expect(state.userUsed).toBe(sum);
    expect(state.tokenUsed).toBe(sum);
    expect(state.channelUsed).toBe(sum);
    return { log: state.logs[0]!, count: state.logs.length };
  };

  it('json with `usage: {type: "duration", seconds}` bills the upstream\'s seconds at the audio ratio', async () => {
    const audio = pcmWav(2.5); // the upstream's 9 s wins over the 2.5 s measured here
    upstream.reply({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ text: 'Hello from whisper.', usage: { type: 'duration', seconds: 9 } }),
    });
    const result = await client.audio.transcriptions.create({
      file: await toFile(audio, 'speech.wav', { type: 'audio/wav' }),
      model: 'whisper-1',
      response_format: 'json',
    });
    expect(result.text).toBe('Hello from whisper.');
    expect(result.usage).toEqual({ type: 'duration', seconds: 9 });

    const sent = upstream.requests.at(-1)!;
    expect(sent.url).toBe('/v1/audio/transcriptions');
    expect(sent.headers.authorization).toBe('Bearer sk-upstream');
    const form = await formOf(sent);
    expect(form.get('model')).toBe('whisper-1');
    expect(form.get('response_format')).toBe('json');
    const file = form.get('file') as File;
    expect(file.name).toBe('speech.wav');
    expect(Buffer.from(await file.arrayBuffer()).equals(audio)).toBe(true);

    const { log } = await lastBill();
    // 9 s → 150 tokens; round(15 × 150 × 0.2) = 450 (US$0.0009 = 9 s at US$0.006 a minute).
    expect(log).toMatchObject({ model_name: 'whisper-1', prompt_tokens: 150, completion_tokens: 0, quota: 450 });
    expect(log.other).toMatchObject({ model_ratio: 15, audio: true, audio_input: 150, audio_ratio: 0.2 });
    expect(log.content).toContain('音频倍率 0.2');
    expect(quotaOfLog(log, log.other)).toBe(450);
  });

  it('json with token usage (gpt-4o-transcribe) bills audio input tokens at the audio ratio and output tokens', async () => {
    const usage = {
      type: 'tokens',
      input_tokens: 14,
      input_token_details: { text_tokens: 4, audio_tokens: 10 },
      output_tokens: 45,
      total_tokens: 59,
    };
    upstream.reply({ status: 200, contentType: 'application/json', body: JSON.stringify({ text: 'A longer transcript.', usage }) });
    const result = await client.audio.transcriptions.create({ file: await toFile(pcmWav(60), 'minute.wav'), model: 'gpt-4o-transcribe' });
    expect(result.text).toBe('A longer transcript.');
    expect(result.usage).toEqual(usage);
    expect((await formOf(upstream.requests.at(-1)!)).get('model')).toBe('gpt-4o-transcribe');

    const { log } = await lastBill();
    // 1.25 × (4 + 10 × 2.4 + 45 × 4) = 1.25 × 208 = 260 — the tokens, not the 60 s measured.
    expect(log).toMatchObject({ model_name: 'gpt-4o-transcribe', prompt_tokens: 14, completion_tokens: 45, quota: 260 });
    expect(log.other).toMatchObject({ audio_input: 10, audio_ratio: 2.4, completion_ratio: 4 });
    expect(quotaOfLog(log, log.other)).toBe(260);
  });

  it('response_format=text: the plain text reaches the client unchanged and the measured length is billed', async () => {
    const text = 'Hello from a plain text answer.\n';
    upstream.reply({ status: 200, contentType: 'text/plain; charset=utf-8', body: text });
    const raw = await client.audio.transcriptions
      .create({ file: await toFile(pcmWav(2.5), 'a.wav'), model: 'whisper-1', response_format: 'text' })
      .asResponse();
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await raw.text()).toBe(text);
    expect((await formOf(upstream.requests.at(-1)!)).get('response_format')).toBe('text');

    const { log } = await lastBill();
    // 2.5 s → 3 started seconds → 50 tokens; round(15 × 50 × 0.2) = 150.
    expect(log).toMatchObject({ prompt_tokens: 50, completion_tokens: 0, quota: 150 });
    expect(log.other).toMatchObject({ audio_input: 50 });
  });

  it("srt of an MP3 upload: the subtitles pass through and the MP3's frames give the length", async () => {
    const srt = '1\n00:00:00,000 --> 00:00:04,000\nHello there.\n\n';
    upstream.reply({ status: 200, contentType: 'text/plain; charset=utf-8', body: srt });
    // 400 frames of 1,152 samples at 44.1 kHz = 10.45 s → 11 s → 183 tokens.
    const answer = await client.audio.transcriptions.create({
      file: await toFile(mp3Frames(400), 'clip.mp3', { type: 'audio/mpeg' }),
      model: 'whisper-1',
      response_format: 'srt',
    });
    expect(answer).toBe(srt);
    const { log } = await lastBill();
    expect(log).toMatchObject({ prompt_tokens: 183, completion_tokens: 0, quota: Math.round(15 * 183 * 0.2) });
  });

  it('verbose_json without usage bills its `duration`', async () => {
    const verbose = {
      task: 'transcribe',
      language: 'english',
      duration: 8.47,
      text: 'Verbose words.',
      segments: [{ id: 0, start: 0, end: 8.47, text: 'Verbose words.' }],
    };
    upstream.reply({ status: 200, contentType: 'application/json', body: JSON.stringify(verbose) });
    const result = await client.audio.transcriptions.create({
      file: await toFile(pcmWav(1), 'a.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
    });
    expect(result).toMatchObject({ duration: 8.47, text: 'Verbose words.' });
    const { log } = await lastBill();
    // 8.47 s → 9 started seconds → 150 tokens → 450.
    expect(log).toMatchObject({ prompt_tokens: 150, completion_tokens: 0, quota: 450 });
  });

  it("a garbage file whose length cannot be read, answered in text: the text's tokens are billed (never 0)", async () => {
    const text = 'Words the upstream heard in a file the gateway could not measure.';
    upstream.reply({ status: 200, contentType: 'text/plain; charset=utf-8', body: text });
    const answer = await client.audio.transcriptions.create({
      file: await toFile(garbage(50_000, 9), 'noise.mp3'),
      model: 'whisper-1',
      response_format: 'text',
    });
    expect(answer).toBe(text);
    const { log } = await lastBill();
    const tokens = countTextTokens(text);
    expect(tokens).toBeGreaterThan(5);
    expect(log).toMatchObject({ prompt_tokens: 0, completion_tokens: tokens, quota: 15 * tokens });
    expect(log.other.audio_input).toBeUndefined();
  });

  it('a garbage file the upstream refuses: its 400 reaches the client and nothing is billed', async () => {
    const before = (await lastBill()).count;
    upstream.reply({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({ error: { message: 'Invalid file format.', type: 'invalid_request_error', param: null, code: null } }),
    });
    const error = await client.audio.transcriptions
      .create({ file: await toFile(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt garbage'), 'broken.wav'), model: 'whisper-1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain('Invalid file format.');
    expect((await lastBill()).count).toBe(before);
  });

  it('a stream (gpt-4o-transcribe, stream=true) bills the usage of transcript.text.done', async () => {
    const events = [
      { type: 'transcript.text.delta', delta: 'Streamed ' },
      { type: 'transcript.text.delta', delta: 'words.' },
      {
        type: 'transcript.text.done',
        text: 'Streamed words.',
        usage: {
          type: 'tokens',
          input_tokens: 20,
          input_token_details: { text_tokens: 0, audio_tokens: 20 },
          output_tokens: 4,
          total_tokens: 24,
        },
      },
    ];
    upstream.reply({
      status: 200,
      contentType: 'text/event-stream',
      body: events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''),
    });
    const stream = await client.audio.transcriptions.create({
      file: await toFile(pcmWav(1), 'a.wav'),
      model: 'gpt-4o-transcribe',
      stream: true,
    });
    const received: string[] = [];
    for await (const event of stream) received.push(event.type);
    expect(received).toEqual(['transcript.text.delta', 'transcript.text.delta', 'transcript.text.done']);
    const { log } = await lastBill();
    // round(1.25 × (20 × 2.4 + 4 × 4)) = 80.
    expect(log).toMatchObject({ model_name: 'gpt-4o-transcribe', prompt_tokens: 20, completion_tokens: 4, quota: 80 });
  });

  it('an upstream duration that is not a number falls back to the measured length', async () => {
    upstream.reply({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ text: 'odd', usage: { type: 'duration', seconds: 'lots' } }),
    });
    await client.audio.transcriptions.create({ file: await toFile(pcmWav(4), 'a.wav'), model: 'whisper-1' });
    const { log } = await lastBill();
    // 4 s → 67 tokens → round(15 × 67 × 0.2) = 201.
    expect(log).toMatchObject({ prompt_tokens: 67, quota: 201 });
  });
});

describe('the quota formula with audio input tokens', () => {
  const whisper = {
    isKnown: true,
    quotaType: 0 as const,
    modelRatio: 15,
    completionRatio: 1,
    cacheRatio: 1,
    modelPrice: -1,
    audioRatio: 0.2,
  };

  it('prices audio tokens at modelRatio × audioRatio and the rest of the prompt as text', () => {
    expect(computeQuota(whisper, 1, { promptTokens: 1_000, completionTokens: 0, cachedTokens: 0, audioInputTokens: 1_000 }, 500_000)).toBe(
      3_000,
    ); // a minute: US$0.006
    expect(computeQuota(whisper, 2, { promptTokens: 1_100, completionTokens: 10, cachedTokens: 0, audioInputTokens: 1_000 }, 500_000)).toBe(
      2 * 15 * (100 + 200 + 10),
    );
    // Without an audio ratio audio bills like text.
    expect(
      computeQuota(
        { ...whisper, audioRatio: undefined },
        1,
        { promptTokens: 100, completionTokens: 0, cachedTokens: 0, audioInputTokens: 100 },
        500_000,
      ),
    ).toBe(1_500);
  });

  it('clamps audio tokens to the uncached prompt, in the formula and in clampUsage', () => {
    expect(computeQuota(whisper, 1, { promptTokens: 100, completionTokens: 0, cachedTokens: 0, audioInputTokens: 5_000 }, 500_000)).toBe(
      300,
    );
    expect(clampUsage({ promptTokens: 100, completionTokens: 0, cachedTokens: 40, audioInputTokens: 5_000 })).toEqual({
      promptTokens: 100,
      completionTokens: 0,
      cachedTokens: 40,
      audioInputTokens: 60,
    });
    expect(clampUsage({ promptTokens: 100, completionTokens: 0, cachedTokens: 0, audioInputTokens: -3 })).toEqual({
      promptTokens: 100,
      completionTokens: 0,
      cachedTokens: 0,
      audioInputTokens: 0,
    });
    const clean = { promptTokens: 100, completionTokens: 1, cachedTokens: 0, audioInputTokens: 100 };
    expect(clampUsage(clean)).toBe(clean);
  });
});
