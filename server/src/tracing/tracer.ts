import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, Sampler, SpanExporter } from '@opentelemetry/sdk-trace';
import type { TraceSampler, TracingConfig } from './tracing-config.js';
import type { Tracing } from './tracing.js';

type WarnLog = { warn(object: object, message: string): void };

/** The SDK's modules, imported only when tracing is on (the server bundle keeps a dynamic import of a package dynamic). */
async function loadSdk() {
  const [core, exporter, resources, sdk] = await Promise.all([
    import('@opentelemetry/core'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
  ]);
  return { ...core, ...exporter, ...resources, ...sdk };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

function samplerOf(sdk: Sdk, config: TraceSampler): Sampler {
  const rootOf = (kind: 'always_on' | 'always_off' | 'traceidratio', ratio: number): Sampler =>
    kind === 'always_on'
      ? new sdk.AlwaysOnSampler()
      : kind === 'always_off'
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(ratio);
  if (config.kind === 'parentbased') return new sdk.ParentBasedSampler({ root: rootOf(config.root, config.ratio) });
  return rootOf(config.kind, config.kind === 'traceidratio' ? config.ratio : 1);
}

/**
 * The exporter, reporting a failing collector once at warn and again only after it recovered: a
 * collector that is down costs a log line, never one per batch, and never a relayed call.
 */
class WarnOnceExporter implements SpanExporter {
  private isFailing = false;
  log: WarnLog | null = null;

  constructor(
    private readonly inner: SpanExporter,
    private readonly url: string,
    private readonly failed: number,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === this.failed) {
        if (!this.isFailing)
          this.log?.warn(
            { endpoint: this.url, err: result.error?.message },
            'OpenTelemetry trace export failed; spans are dropped until the collector answers again',
          );
        this.isFailing = true;
      } else {
        this.isFailing = false;
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The endpoint as logged: a user name or password in the URL is left out. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}

/**
 * The trace SDK for the configured OTLP/HTTP endpoint: a provider of its own (nothing global is
 * registered, so no other library's spans are picked up), batched export, the configured sampler.
 */
export async function startTracing(config: TracingConfig, version: string): Promise<Tracing> {
  const sdk = await loadSdk();
  const exporter = new WarnOnceExporter(
    new sdk.OTLPTraceExporter({ url: config.url, headers: config.headers }),
    withoutCredentials(config.url),
    sdk.ExportResultCode.FAILED,
  );
  const processor = new sdk.BatchSpanProcessor({ exporter });
  const provider = new sdk.TracerProvider({
    resource: sdk.resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    sampler: samplerOf(sdk, config.sampler),
    spanProcessors: [processor],
  });
  let isShutDown = false;
  return {
    tracer: provider.getTracer('modelgate', version),
    propagator: new sdk.W3CTraceContextPropagator(),
    capturesContent: config.captureMessageContent,
    setLog(log) {
      exporter.log = log;
    },
    // A failed export was reported by the exporter (once); flushing and stopping never fail the caller.
    flush: () => (isShutDown ? Promise.resolve() : provider.forceFlush().catch(() => undefined)),
    async shutdown() {
      if (isShutDown) return;
      isShutDown = true;
      await provider.shutdown().catch(() => undefined);
    },
  };
}
