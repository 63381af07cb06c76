import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { eventTypes, openClient, startMockRealtime, waitFor, type MockRealtime } from '../helpers/realtime-upstream.js';
import { startSunoUpstream, type SunoUpstream } from '../helpers/suno-upstream.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { createRelayChannel, createRelayToken, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { createSdkCaller } from './sdk-setup.js';

const serverKind = 2;
const clientKind = 3;
const prompt = 'a secret prompt about otel-zebra-7';

describe.each(storageKinds())('OpenTelemetry traces of relayed calls on %s', (kind) => {
  let server: TestServer;
  let collector: OtlpReceiver;
  let mock: MockOpenAi;
  let suno: SunoUpstream;
  let realtime: MockRealtime;
  let client: OpenAI;
  let caller: { userId: number; tokenId: number; apiKey: string };
  const channels: Record<string, number> = {};

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    mock = await startMockOpenAi();
    suno = await startSunoUpstream('suno-key');
    realtime = await startMockRealtime();
    server = await startTestServer({
      kind,
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=collector%20secret',
        OTEL_SERVICE_NAME: 'modelgate-test',
      },
    });
    await setOption(
      server.ctx,
      'ModelRatio',
      JSON.stringify({
        ...server.ctx.options.json<Record<string, number>>('ModelRatio'),
        'gpt-otel': 1,
        'gpt-otel-failover': 1,
        'gpt-otel-allfail': 1,
        'gpt-otel-cache': 1,
      }),
    );
    await setOption(server.ctx, 'RetryTimes', '2');
    caller = await createSdkCaller(server.ctx);
    channels.ok = await createRelayChannel(server.ctx, {
      key: 'otel-channel-key',
      baseURL: mock.url,
      models: ['gpt-otel'],
      modelMapping: { 'gpt-otel': 'gpt-otel-upstream' },
    });
    channels.broken = await createRelayChannel(server.ctx, {
      key: 'fail-500',
      baseURL: mock.url,
      models: ['gpt-otel-failover'],
      priority: 10,
      autoBan: false,
    });
    channels.healthy = await createRelayChannel(server.ctx, {
      key: 'otel-healthy-key',
      baseURL: mock.url,
      models: ['gpt-otel-failover'],
      priority: 0,
    });
    channels.cache = await createRelayChannel(server.ctx, { key: 'otel-cache-key', baseURL: mock.url, models: ['gpt-otel-cache'] });
    channels.first502 = await createRelayChannel(server.ctx, {
      key: 'fail-502',
      baseURL: mock.url,
      models: ['gpt-otel-allfail'],
      priority: 10,
      autoBan: false,
    });
    channels.last503 = await createRelayChannel(server.ctx, {
      key: 'fail-503',
      baseURL: mock.url,
      models: ['gpt-otel-allfail'],
      priority: 0,
      autoBan: false,
    });
    await setOption(server.ctx, 'TaskEnabled', 'true');
    await setOption(server.ctx, 'ModelPrice', JSON.stringify({ suno_music: 0.1 }));
    channels.suno = await createRelayChannel(server.ctx, { type: 36, key: 'suno-key', baseURL: suno.url, models: ['suno_music'] });
    client = new OpenAI({ apiKey: caller.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
    await suno?.close();
    await realtime?.close();
    await collector?.close();
  });

  /** The spans of the trace whose request span (the SERVER span) is the newest one for the model, once it and its attempts are exported. */
  async function traceOf(model: string, attempts: number): Promise<{ request: ReceivedSpan; attempts: ReceivedSpan[] }> {
    const deadline = Date.now() + 5000;
    for (;;) {
      await server.ctx.tracing!.flush();
      const request = collector.spans
        .filter((span) => span.kind === serverKind && span.attributes['gen_ai.request.model'] === model)
        .at(-1);
      const children = request ? collector.spans.filter((span) => span.parentSpanId === request.spanId) : [];
      if (request && children.length >= attempts) {
        return {
          request,
          attempts: children.sort((a, b) => Number(a.attributes['modelgate.attempt']) - Number(b.attributes['modelgate.attempt'])),
        };
      }
      if (Date.now() > deadline) throw new Error(`no trace with ${attempts} attempts for ${model}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  const lastLog = async () => {
    await flushRelay(server.ctx);
    return server.ctx.storage.db
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', caller.userId)
      .where('type', '=', 2)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  };

  it('traces a chat call: a request span, its attempt span, GenAI attributes, the bill, and the traceparent sent upstream', async () => {
    const answer = await client.chat.completions.create({
      model: 'gpt-otel',
      max_tokens: 64,
      messages: [{ role: 'user', content: prompt }],
    });
    const { request, attempts } = await traceOf('gpt-otel', 1);
    const log = await lastLog();
    expect(request).toMatchObject({ kind: serverKind, status: 1, name: 'chat gpt-otel', parentSpanId: '' });
    expect(request.resource['service.name']).toBe('modelgate-test');
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-otel',
      'gen_ai.response.model': 'gpt-otel-upstream',
      'gen_ai.usage.input_tokens': answer.usage!.prompt_tokens,
      'gen_ai.usage.output_tokens': answer.usage!.completion_tokens,
      'modelgate.quota': Number(log.quota),
      'modelgate.channel.id': channels.ok,
      'modelgate.user.id': caller.userId,
      'modelgate.token.id': caller.tokenId,
      'url.path': '/v1/chat/completions',
      'gen_ai.request.stream': false,
      'gen_ai.request.max_tokens': 64,
    });
    expect(Number(log.quota)).toBeGreaterThan(0);
    expect(attempts).toHaveLength(1);
    const [attempt] = attempts;
    expect(attempt).toMatchObject({ kind: clientKind, status: 1, traceId: request.traceId });
    expect(attempt!.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-otel',
      'gen_ai.response.model': 'gpt-otel-upstream',
      'modelgate.upstream_model': 'gpt-otel-upstream',
      'modelgate.channel.id': channels.ok,
      'modelgate.channel.type': 1,
      'modelgate.attempt': 1,
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(mock.url).port),
    });
    // The upstream sees the attempt span as its parent (W3C trace context).
    const sent = mock.requestsFor('otel-channel-key').at(-1)!;
    expect(sent.headers.traceparent).toBe(`00-${request.traceId}-${attempt!.spanId}-01`);
    // Ids only: no channel key, client key, prompt or completion text anywhere in the exported spans
    // (message content capture is off by default; on: otel-content.test.ts).
    const exported = JSON.stringify(collector.spans);
    for (const secret of [
      'otel-channel-key',
      caller.apiKey,
      caller.apiKey.replace(/^sk-/, ''),
      'otel-zebra-7',
      answer.choices[0]!.message.content!,
    ])
      expect(exported).not.toContain(secret);
    expect(request.attributes['gen_ai.input.messages']).toBeUndefined();
    expect(request.attributes['gen_ai.output.messages']).toBeUndefined();
    // The collector's API key goes with each export, as configured.
    expect(collector.exportHeaders.at(-1)!['x-collector-key']).toBe('collector secret');
  });

  it('makes a client traceparent the parent of the request span, and starts a fresh trace for a malformed one', async () => {
    const parentTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentSpan = '00f067aa0ba902b7';
    await client.chat.completions.create(
      { model: 'gpt-otel', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { traceparent: `00-${parentTrace}-${parentSpan}-01`, tracestate: 'vendor=1' } },
    );
    const linked = await traceOf('gpt-otel', 1);
    expect(linked.request.traceId).toBe(parentTrace);
    expect(linked.request.parentSpanId).toBe(parentSpan);
    expect(mock.requestsFor('otel-channel-key').at(-1)!.headers.tracestate).toBe('vendor=1');

    const before = collector.spans.length;
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.apiKey}`, 'content-type': 'application/json', traceparent: `00-${'0'.repeat(32)}-zz-01` },
      body: JSON.stringify({ model: 'gpt-otel', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    const fresh = await traceOf('gpt-otel', 1);
    expect(collector.spans.length).toBeGreaterThan(before);
    expect(fresh.request.parentSpanId).toBe('');
    expect(fresh.request.traceId).not.toBe(parentTrace);
    expect(fresh.request.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('traces a failover: the failed attempt with its status and retry reason, then the one that served', async () => {
    const answer = await client.chat.completions.create({
      model: 'gpt-otel-failover',
      messages: [{ role: 'user', content: 'fail over please' }],
    });
    expect(answer.choices[0]!.message.content).toBe('Hello from the mock upstream.');
    const { request, attempts } = await traceOf('gpt-otel-failover', 2);
    expect(attempts).toHaveLength(2);
    const [failed, served] = attempts;
    expect(failed).toMatchObject({ status: 2, traceId: request.traceId });
    expect(failed!.attributes).toMatchObject({
      'modelgate.channel.id': channels.broken,
      'modelgate.attempt': 1,
      'http.response.status_code': 500,
      'error.type': '500',
      'modelgate.retry_reason': 'upstream_status_500',
    });
    expect(served).toMatchObject({ status: 1 });
    expect(served!.attributes).toMatchObject({ 'modelgate.channel.id': channels.healthy, 'modelgate.attempt': 2 });
    expect(served!.attributes['modelgate.retry_reason']).toBeUndefined();
    expect(request.attributes['modelgate.channel.id']).toBe(channels.healthy);
    // Each attempt sent its own span as the upstream's parent.
    expect(mock.requestsFor('fail-500').at(-1)!.headers.traceparent).toBe(`00-${request.traceId}-${failed!.spanId}-01`);
    expect(mock.requestsFor('otel-healthy-key').at(-1)!.headers.traceparent).toBe(`00-${request.traceId}-${served!.spanId}-01`);
  });

  it('gives the retry reason only to a failed attempt another attempt followed, not to the last one', async () => {
    await expect(
      client.chat.completions.create({ model: 'gpt-otel-allfail', messages: [{ role: 'user', content: 'no channel answers' }] }),
    ).rejects.toThrow();
    const { request, attempts } = await traceOf('gpt-otel-allfail', 2);
    expect(attempts).toHaveLength(2);
    const [retried, last] = attempts;
    expect(retried).toMatchObject({ status: 2 });
    expect(retried!.attributes).toMatchObject({
      'modelgate.channel.id': channels.first502,
      'error.type': '502',
      'http.response.status_code': 502,
      'modelgate.retry_reason': 'upstream_status_502',
    });
    // 503 is retryable (RetryStatusCodes), but no channel was left: its classification, no retry reason.
    expect(last).toMatchObject({ status: 2 });
    expect(last!.attributes).toMatchObject({
      'modelgate.channel.id': channels.last503,
      'modelgate.attempt': 2,
      'error.type': '503',
      'http.response.status_code': 503,
    });
    expect(last!.attributes['modelgate.retry_reason']).toBeUndefined();
    expect(request.status).toBe(2);
    // The held span ends when its attempt did, before the next one starts (start times have ms precision).
    expect(BigInt(retried!.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(last!.startTimeUnixNano) + 1_000_000n);
  });

  it("records a stream's time to first chunk as an attribute and an event", async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-otel',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream it' }],
    });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) usage = chunk.usage ?? usage;
    const { request, attempts } = await traceOf('gpt-otel', 1);
    expect(request.attributes['gen_ai.request.stream']).toBe(true);
    expect(request.attributes['gen_ai.usage.output_tokens']).toBe(usage!.completion_tokens);
    expect(request.attributes['modelgate.quota']).toBe(Number((await lastLog()).quota));
    // Seconds from millisecond clocks: a local upstream's first chunk can come within the same millisecond.
    const ttft = request.attributes['gen_ai.response.time_to_first_chunk'] as number;
    expect(typeof ttft).toBe('number');
    expect(ttft).toBeGreaterThanOrEqual(0);
    expect(ttft).toBeLessThan(5);
    const event = request.events.find((entry) => entry.name === 'modelgate.first_chunk');
    expect(event).toBeDefined();
    expect(BigInt(event!.timeUnixNano)).toBeGreaterThanOrEqual(BigInt(request.startTimeUnixNano));
    expect(attempts[0]!.status).toBe(1);
  });

  it("traces a task submit through the same attempt loop: the client's trace as parent, the price billed, the traceparent sent upstream", async () => {
    const parentTrace = '6bf92f3577b34da6a3ce929d0e0e4736';
    const response = await fetch(`${server.url}/suno/submit/music`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${caller.apiKey}`,
        'content-type': 'application/json',
        traceparent: `00-${parentTrace}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({ prompt: 'a song about otel-zebra-7', tags: 'pop' }),
    });
    expect(response.status).toBe(200);
    const { request, attempts } = await traceOf('suno_music', 1);
    const log = await lastLog();
    expect(request.traceId).toBe(parentTrace);
    expect(request.parentSpanId).toBe('00f067aa0ba902b7');
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'suno.MUSIC',
      'modelgate.quota': Number(log.quota),
      'modelgate.channel.id': channels.suno,
    });
    expect(request.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(attempts[0]!.attributes).toMatchObject({
      'gen_ai.provider.name': 'suno',
      'modelgate.channel.id': channels.suno,
      'modelgate.channel.type': 36,
    });
    expect(suno.submits.at(-1)!.traceparent).toBe(`00-${request.traceId}-${attempts[0]!.spanId}-01`);
    expect(JSON.stringify(collector.spans)).not.toContain('otel-zebra-7');
  });

  it("traces a Realtime session: the client's trace as parent, the handshake attempt's traceparent upstream, usage and quota at close", async () => {
    channels.realtime = await createRelayChannel(server.ctx, {
      key: 'otel-realtime-key',
      baseURL: realtime.url,
      models: ['gpt-4o-realtime-preview'],
    });
    const parentTrace = '5bf92f3577b34da6a3ce929d0e0e4736';
    const before = realtime.connections.length;
    const socket = openClient(`${server.url.replace(/^http/, 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`, {
      headers: { authorization: `Bearer ${caller.apiKey}`, traceparent: `00-${parentTrace}-00f067aa0ba902b7-01` },
    });
    await socket.opened;
    await waitFor(() => socket.frames.length >= 1, 'session.created');
    socket.socket.send(JSON.stringify({ type: 'response.create' }));
    await waitFor(() => eventTypes(socket.frames).includes('response.done'), 'response.done');
    socket.socket.close(1000, 'bye');
    const { request, attempts } = await traceOf('gpt-4o-realtime-preview', 1);
    const log = await lastLog();
    expect(request.traceId).toBe(parentTrace);
    expect(request.attributes).toMatchObject({
      'gen_ai.operation.name': 'realtime',
      'modelgate.channel.id': channels.realtime,
      'modelgate.quota': Number(log.quota),
      'gen_ai.usage.input_tokens': log.prompt_tokens,
      'gen_ai.usage.output_tokens': log.completion_tokens,
    });
    expect(Number(log.quota)).toBeGreaterThan(0);
    expect(request.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);
    expect(attempts[0]!.attributes).toMatchObject({
      'modelgate.channel.id': channels.realtime,
      'modelgate.upstream_model': 'gpt-4o-realtime-preview',
    });
    expect(realtime.connections[before]!.headers.traceparent).toBe(`00-${parentTrace}-${attempts[0]!.spanId}-01`);
    expect(JSON.stringify(collector.spans)).not.toContain('otel-realtime-key');
  });

  it('marks a call the response cache answered: a miss with its attempt, then a hit without one', async () => {
    const token = await createRelayToken(server.ctx, caller.userId, { responseCacheTtl: 60 });
    const cacheClient = new OpenAI({ apiKey: token.apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const body = { model: 'gpt-otel-cache', temperature: 0, messages: [{ role: 'user' as const, content: 'otel cache prompt' }] };
    const first = await cacheClient.chat.completions.create(body);
    const miss = await traceOf('gpt-otel-cache', 1);
    expect(miss.request.attributes['modelgate.cache']).toBe('miss');
    const sentBefore = mock.requestsFor('otel-cache-key').length;
    await cacheClient.chat.completions.create(body);
    expect(mock.requestsFor('otel-cache-key')).toHaveLength(sentBefore);
    const deadline = Date.now() + 5000;
    let hit: ReceivedSpan | undefined;
    while (!hit) {
      await server.ctx.tracing!.flush();
      hit = collector.spans
        .filter(
          (span) =>
            span.kind === serverKind && span.attributes['gen_ai.request.model'] === 'gpt-otel-cache' && span.spanId !== miss.request.spanId,
        )
        .at(-1);
      if (!hit && Date.now() > deadline) throw new Error('no request span for the cache hit');
      if (!hit) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The hit made no attempt, and is billed the default hit ratio (0) of the original call.
    expect(hit.attributes).toMatchObject({
      'modelgate.cache': 'hit',
      'modelgate.quota': 0,
      'gen_ai.usage.input_tokens': first.usage!.prompt_tokens,
      'gen_ai.usage.output_tokens': first.usage!.completion_tokens,
    });
    expect(collector.spans.filter((span) => span.parentSpanId === hit!.spanId)).toHaveLength(0);
    expect(Number((await lastLog()).quota)).toBe(0);
  });

  it('ends the request span with the error a failed call is answered with', async () => {
    await expect(
      client.chat.completions.create({ model: 'gpt-otel-missing', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow();
    const { request } = await traceOf('gpt-otel-missing', 0);
    expect(request.status).toBe(2);
    expect(request.attributes['http.response.status_code']).toBeGreaterThanOrEqual(400);
    expect(typeof request.attributes['error.type']).toBe('string');
  });
});
