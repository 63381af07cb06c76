import { W3CTraceContextPropagator, ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider,
  type ReadableSpan, type Sampler, type SpanExporter,
} from '@opentelemetry/sdk-trace';
import type { TraceSampler, TracingConfig } from './tracing-config.js';
import type { Tracing } from './tracing.js';

type WarnLog = { warn(object: object, message: string): void };

function samplerOf(config: TraceSampler): Sampler {
  const rootOf = (kind: 'always_on' | 'always_off' | 'traceidratio', ratio: number): Sampler =>
    kind === 'always_on' ? new AlwaysOnSampler() : kind === 'always_off' ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  if (config.kind === 'parentbased') return new ParentBasedSampler({ root: rootOf(config.root, config.ratio) });
  return rootOf(config.kind, config.kind === 'traceidratio' ? config.ratio : 1);
}

/**
 * The exporter, reporting a failing collector once at warn and again only after it recovered: a
 * collector that is down costs a log line, never one per batch, and never a relayed call.
 */
class WarnOnceExporter implements SpanExporter {
  private isFailing = false;
  log: WarnLog | null = null;

  constructor(private readonly inner: SpanExporter, private readonly url: string) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.FAILED) {
        if (!this.isFailing) this.log?.warn({ endpoint: this.url, err: result.error?.message }, 'OpenTelemetry trace export failed; spans are dropped until the collector answers again');
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

/**
 * The trace SDK for the configured OTLP/HTTP endpoint: a provider of its own (nothing global is
 * registered, so no other library's spans are picked up), batched export, the configured sampler.
 */
export function startTracing(config: TracingConfig, version: string): Tracing {
  const exporter = new WarnOnceExporter(new OTLPTraceExporter({ url: config.url, headers: config.headers }), config.url);
  const processor = new BatchSpanProcessor({ exporter });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    sampler: samplerOf(config.sampler),
    spanProcessors: [processor],
  });
  let isShutDown = false;
  return {
    tracer: provider.getTracer('modelgate', version),
    propagator: new W3CTraceContextPropagator(),
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
