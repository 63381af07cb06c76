import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

const tracingOf = (env: Record<string, string>) => loadConfig({ SESSION_SECRET: 's', ...env }).tracing;

describe('OpenTelemetry trace settings (OTEL_*)', () => {
  it('is off without an endpoint, and with OTEL_SDK_DISABLED=true', () => {
    expect(tracingOf({})).toBeNull();
    expect(tracingOf({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeNull();
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('adds /v1/traces to the shared endpoint and takes the traces endpoint as the whole URL', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toMatchObject({
      url: 'http://collector:4318/v1/traces',
      serviceName: 'modelgate',
    });
    expect(
      tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b.example/otlp/traces' })!.url,
    ).toBe('https://b.example/otlp/traces');
  });

  it('reads the headers (percent-decoded, signal ones win), the service name and the sampler', () => {
    const config = tracingOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'Api-Key=a%20b,x-team=core',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=traces',
      OTEL_SERVICE_NAME: 'gate-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(config).toMatchObject({
      headers: { 'api-key': 'a b', 'x-team': 'traces' },
      serviceName: 'gate-eu',
      sampler: { kind: 'parentbased', root: 'traceidratio', ratio: 0.25 },
    });
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })!.sampler).toEqual({
      kind: 'parentbased',
      root: 'always_on',
      ratio: 1,
    });
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'always_off' })!.sampler).toEqual({
      kind: 'always_off',
    });
  });

  it('captures message content only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is true', () => {
    const capture = (value?: string) =>
      tracingOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        ...(value === undefined ? {} : { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value }),
      })!.captureMessageContent;
    expect(capture()).toBe(false);
    expect(capture('')).toBe(false);
    expect(capture('false')).toBe(false);
    expect(capture('true')).toBe(true);
    expect(capture(' TRUE ')).toBe(true);
  });

  it('stops start-up with a message naming the variable for a malformed value, never echoing a header value', () => {
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL, got "collector:4318"',
    );
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http/,
    );
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://c:4317' })).toThrow(/must be an http/);
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://user:pw-secret@c:4317' })).toThrow('got "grpc://***@c:4317"');
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(
      /OTEL_TRACES_SAMPLER must be one of/,
    );
    expect(() =>
      tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }),
    ).toThrow(/OTEL_TRACES_SAMPLER_ARG must be a ratio/);
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/json/,
    );
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).not.toBeNull();
    expect(() =>
      tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' }),
    ).toThrow('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT must be true or false, got "yes"');
    const secret = 'hunter2-secret';
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: `${secret}` })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS must be a comma-separated list/,
    );
    expect(() => tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: `key=${secret}%zz` })).toThrow(
      /"key"/,
    );
    try {
      tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_HEADERS: `key=${secret}%zz` });
    } catch (error) {
      expect((error as Error).message).not.toContain(secret);
    }
  });
});
