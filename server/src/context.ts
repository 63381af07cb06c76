import type { Metrics } from './metrics/metrics.js';
import type { Lifecycle } from './lifecycle.js';
import type { OverloadGuard } from './lib/overload-guard.js';
import type { Bus } from './cache/bus.js';
import type { Cache } from './cache/index.js';
import type { Config } from './config.js';
import type { Storage } from './db/index.js';
import type { OptionStore } from './options/store.js';
import type { Tracing } from './tracing/tracing.js';

/** What every route module and use case may reach: built once in main.ts (or a test). */
export interface AppContext {
  config: Config;
  storage: Storage;
  cache: Cache;
  options: OptionStore;
  /** Change notifications for in-memory caches on every instance. */
  bus: Bus;
  /** Unix seconds when this instance started. */
  startTime: number;
  /** Tasks to run on graceful shutdown (flush write-behind counters, close pools), in order. */
  onClose: Array<() => Promise<void>>;
  /** Health checks, requests in flight and draining at shutdown (lifecycle.ts). */
  lifecycle: Lifecycle;
  /** Refuses relay calls while this process is overloaded (lib/overload-guard.ts). */
  overload: OverloadGuard;
  /** Prometheus metrics of this app (metrics/metrics.ts). */
  metrics: Metrics;
  /** OpenTelemetry traces of relayed calls; null when off (no OTLP endpoint configured). */
  tracing: Tracing | null;
}
