import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLocal, sendJson } from '../helpers/local-http.js';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { createRelayChannel, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createSdkCaller } from './sdk-setup.js';

const serverKind = 2;

/** Tracing off, a graceful shutdown's flush, and a collector that refuses exports (traces of calls: otel-traces.test.ts). */
describe('OpenTelemetry traces off, and with the collector down', () => {
  let mock: MockOpenAi;

  beforeAll(async () => {
    mock = await startMockOpenAi();
  });
  afterAll(async () => {
    await mock?.close();
  });

  async function chatThrough(server: TestServer, key: string): Promise<number> {
    await setOption(server.ctx, 'SelfUseModeEnabled', 'true');
    await createRelayChannel(server.ctx, { key, baseURL: mock.url, models: ['gpt-otel'] });
    const { apiKey } = await createSdkCaller(server.ctx);
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
      body: JSON.stringify({ model: 'gpt-otel', messages: [{ role: 'user', content: 'hi' }] }),
    });
    return response.status;
  }

  it("is off without an endpoint: no tracing, and no trace context sent upstream (not even the client's)", async () => {
    const server = await startTestServer();
    try {
      expect(server.ctx.tracing).toBeNull();
      expect(await chatThrough(server, 'otel-off-key')).toBe(200);
      const sent = mock.requestsFor('otel-off-key').at(-1)!;
      expect(sent.headers.traceparent).toBeUndefined();
      expect(sent.headers.tracestate).toBeUndefined();
    } finally {
      await server.stop();
    }
  });

  it('exports the spans still queued when the server shuts down gracefully', async () => {
    const collector = await startOtlpReceiver();
    const server = await startTestServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
    try {
      expect(await chatThrough(server, 'otel-shutdown-key')).toBe(200);
      // Within the batch delay (5 s) nothing has been exported yet; the graceful stop flushes.
      await server.stop();
      const request = collector.spans.find((span) => span.kind === serverKind && span.attributes['gen_ai.request.model'] === 'gpt-otel');
      expect(request).toBeDefined();
      expect(collector.spans.some((span) => span.parentSpanId === request!.spanId)).toBe(true);
    } finally {
      await server.stop();
      await collector.close();
    }
  });

  it('answers calls while the collector refuses the exports, and logs the failure once at warn', async () => {
    // A collector that refuses every export (400: not retried, so the test does not wait out the exporter's backoff).
    let refused = 0;
    const refusing = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        refused += 1;
        sendJson(res, 400, { message: 'no' });
      });
    });
    const url = await listenLocal(refusing);
    const lines: string[] = [];
    // Credentials in the endpoint URL are never logged.
    const withCredentials = url.replace('http://', 'http://otel-user:otel-pass-123@');
    const server = await startTestServer({
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${withCredentials}/v1/traces`, LOG_LEVEL: 'warn' },
      loggerStream: { write: (line: string) => void lines.push(line) },
    });
    try {
      expect(await chatThrough(server, 'otel-down-key')).toBe(200);
      await server.ctx.tracing!.flush();
      expect(await chatThrough(server, 'otel-down-key-2')).toBe(200);
      await server.ctx.tracing!.flush();
      expect(refused).toBeGreaterThanOrEqual(2);
      const warnings = lines.filter((line) => line.includes('trace export failed'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, endpoint: `${url}/v1/traces` });
      expect(lines.join('\n')).not.toContain('otel-pass-123');
      expect(mock.requestsFor('otel-down-key').at(-1)!.headers.traceparent).toMatch(
        /^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/,
      );
    } finally {
      await server.stop();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });
});
