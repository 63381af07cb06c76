import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { OptionStore } from '../options/store.js';
import { RelaySeries, type RelayObservation } from './relay-series.js';

export { routeLabel, type RelayObservation } from './relay-series.js';

/** What the relay and billing state the scrape reads at collection time (set once the relay is up). */
export interface MetricsSources {
  relayCallsInFlight(): number;
  /** Enabled channels known to the relay, with 1 (taking traffic) or 0 (cooling down). */
  channelStates(): Array<{ id: number; isUp: boolean }>;
  billing(): { pendingLogs: number; lastFlushAgeSeconds: number; flushFailures: number };
}

/**
 * Prometheus metrics of one app, recorded inside the relay so the direct lane is counted too.
 * Recording is a boolean check when MetricsEnabled is off, and a few additions when on (the relay's
 * series are plain numbers, relay-series.ts); the gauges and the process metrics are prom-client's,
 * read at scrape time from their own registry (one per app: tests start many apps in one process).
 * Served at GET /metrics behind MetricsToken.
 */
export class Metrics {
  readonly registry = new Registry();
  private sources: MetricsSources | null = null;
  private readonly relay = new RelaySeries();
  private hasDefaultMetrics = false;

  constructor(private readonly options: OptionStore) {
    const registers = [this.registry];
    const sources = () => this.sources;
    new Gauge({
      name: 'modelgate_relay_in_flight',
      help: 'Relayed requests in flight on this instance',
      registers,
      collect() {
        this.set(sources()?.relayCallsInFlight() ?? 0);
      },
    });
    new Gauge({
      name: 'modelgate_channel_up',
      help: 'Enabled channels: 1 taking traffic, 0 cooling down after failures',
      labelNames: ['channel'],
      registers,
      collect() {
        this.reset();
        for (const { id, isUp } of sources()?.channelStates() ?? []) this.set({ channel: String(id) }, isUp ? 1 : 0);
      },
    });
    new Gauge({
      name: 'modelgate_billing_pending_logs',
      help: 'Consume log rows waiting for the next write-behind flush',
      registers,
      collect() {
        this.set(sources()?.billing().pendingLogs ?? 0);
      },
    });
    new Gauge({
      name: 'modelgate_billing_flush_lag_seconds',
      help: 'Seconds since the last successful write-behind flush',
      registers,
      collect() {
        this.set(sources()?.billing().lastFlushAgeSeconds ?? 0);
      },
    });
    new Gauge({
      name: 'modelgate_billing_flush_failures',
      help: 'Write-behind flushes that failed since start (their writes are retried)',
      registers,
      collect() {
        this.set(sources()?.billing().flushFailures ?? 0);
      },
    });
  }

  get isEnabled(): boolean {
    return this.options.bool('MetricsEnabled');
  }

  setSources(sources: MetricsSources): void {
    this.sources = sources;
  }

  /** Records one relayed request (call only when isEnabled). */
  observe(observation: RelayObservation): void {
    this.relay.observe(observation);
  }

  /** The exposition text; the process metrics (CPU, memory, event loop) are set up on the first scrape. */
  async scrape(): Promise<string> {
    if (!this.hasDefaultMetrics) {
      this.hasDefaultMetrics = true;
      collectDefaultMetrics({ register: this.registry, prefix: 'modelgate_' });
    }
    return this.relay.text() + (await this.registry.metrics());
  }
}
