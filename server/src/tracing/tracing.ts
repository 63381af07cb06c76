import type { TextMapPropagator, Tracer } from '@opentelemetry/api';

/**
 * OpenTelemetry tracing of relayed calls, as the relay sees it: a tracer and the W3C propagator.
 * `ctx.tracing` is null when tracing is off, so the relay's whole cost then is one null check per
 * call; the SDK (tracer.ts) is loaded only when an OTLP endpoint is configured.
 */
export interface Tracing {
  readonly tracer: Tracer;
  /** W3C trace context: a client's traceparent in, each upstream attempt's out. */
  readonly propagator: TextMapPropagator;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: request spans carry prompt and completion text (capped). */
  readonly capturesContent: boolean;
  /** Where an export failure is reported (once, until exports succeed again): the server log once it exists. */
  setLog(log: { warn(object: object, message: string): void }): void;
  /** Exports every finished span now (tests, and shutdown). */
  flush(): Promise<void>;
  /** Flushes and stops: spans ended later are dropped. */
  shutdown(): Promise<void>;
}
