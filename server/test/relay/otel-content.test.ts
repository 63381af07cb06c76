import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';
import { contentCap } from '../../src/relay/tracing/message-content.js';
import { createSdkCaller } from './sdk-setup.js';

const serverKind = 2;
const answerText = 'Hello from the mock upstream.';

/** Message content in request spans: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (off: otel-traces.test.ts). */
describe.each(storageKinds())('OpenTelemetry message content capture on %s', (kind) => {
  let server: TestServer;
  let collector: OtlpReceiver;
  let mock: MockOpenAi;
  let client: OpenAI;
  let apiKey: string;

  beforeAll(async () => {
    collector = await startOtlpReceiver();
    mock = await startMockOpenAi();
    server = await startTestServer({
      kind,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
    });
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    await createRelayChannel(server.ctx, { key: 'otel-content-key', baseURL: mock.url, models: ['gpt-otel-content'] });
    ({ apiKey } = await createSdkCaller(server.ctx));
    client = new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.stop();
    await mock?.close();
    await collector?.close();
  });

  /** The newest request span whose prompt holds `marker`, once exported. */
  async function requestSpan(marker: string): Promise<ReceivedSpan> {
    const deadline = Date.now() + 5000;
    for (;;) {
      await server.ctx.tracing!.flush();
      const found = collector.spans
        .filter((span) => span.kind === serverKind && String(span.attributes['gen_ai.input.messages'] ?? '').includes(marker))
        .at(-1);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no request span with ${marker}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("puts the request's messages and the non-stream answer's message on the request span", async () => {
    const messages = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'prompt otel-content-1' },
    ];
    await client.chat.completions.create({ model: 'gpt-otel-content', messages });
    const span = await requestSpan('otel-content-1');
    expect(JSON.parse(span.attributes['gen_ai.input.messages'] as string)).toEqual(messages);
    const output = JSON.parse(span.attributes['gen_ai.output.messages'] as string);
    expect(output).toHaveLength(1);
    expect(output[0]).toMatchObject({ role: 'assistant', content: answerText });
  });

  it('caps each content attribute with a marker', async () => {
    const long = `otel-content-long ${'x'.repeat(40_000)}`;
    await client.chat.completions.create({ model: 'gpt-otel-content', messages: [{ role: 'user', content: long }] });
    const input = (await requestSpan('otel-content-long')).attributes['gen_ai.input.messages'] as string;
    expect(input).toHaveLength(contentCap);
    expect(input.endsWith('…[truncated]')).toBe(true);
    expect(input.startsWith('[{"role":"user","content":"otel-content-long xxx')).toBe(true);
  });

  it('captures a Claude-format answer in its own shape', async () => {
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-otel-content', max_tokens: 32, messages: [{ role: 'user', content: 'claude otel-content-3' }] }),
    });
    expect(response.status).toBe(200);
    const span = await requestSpan('otel-content-3');
    const output = JSON.parse(span.attributes['gen_ai.output.messages'] as string);
    expect(output[0].role).toBe('assistant');
    expect(JSON.stringify(output[0].content)).toContain(answerText);
  });

  it('captures the prompt of a stream but not its completion (a stream is never buffered for it)', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-otel-content',
      stream: true,
      messages: [{ role: 'user', content: 'stream otel-content-4' }],
    });
    for await (const _chunk of stream) {
      /* drained */
    }
    const span = await requestSpan('otel-content-4');
    expect(span.attributes['gen_ai.request.stream']).toBe(true);
    expect(span.attributes['gen_ai.output.messages']).toBeUndefined();
    // The channel key never goes into a span, content capture or not.
    expect(JSON.stringify(collector.spans)).not.toContain('otel-content-key');
  });
});
