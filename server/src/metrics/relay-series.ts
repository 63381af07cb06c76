/**
 * The relay's per-request metrics, kept as plain numbers and written in the Prometheus text format
 * at scrape time. prom-client hashes and validates a label set on every inc/observe, label children
 * included — a cost per relayed request that the benchmark showed; here a request costs a map
 * lookup and a few additions. Series are bounded by routes × priced models × channels × statuses.
 */

export const latencyBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

class LatencyHistogram {
  readonly buckets = new Array<number>(latencyBuckets.length).fill(0);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.count += 1;
    for (let index = 0; index < latencyBuckets.length; index += 1) {
      if (seconds <= latencyBuckets[index]!) {
        this.buckets[index]! += 1;
        return;
      }
    }
  }
}

interface Series {
  route: string;
  model: string;
  /** By channel × 1000 + status (−status without a channel). */
  requests: Map<number, { channel: string; status: string; count: number }>;
  duration: LatencyHistogram;
  firstByte: LatencyHistogram;
  promptTokens: number;
  completionTokens: number;
  quota: number;
}

export interface RelayObservation {
  route: string;
  model: string;
  channelId: number | null;
  status: number;
  durationMs: number;
  /** Streams: time to the first byte of the answer. */
  firstByteMs?: number;
  promptTokens?: number;
  completionTokens?: number;
  quota?: number;
}

/** Routes as a bounded label set: Gemini's `models/{model}:action` paths lose the model name. */
export function routeLabel(path: string): string {
  const models = path.indexOf('/models/');
  if (models < 0) return path;
  const colon = path.indexOf(':', models);
  return `${path.slice(0, models)}/models/{model}${colon < 0 ? '' : path.slice(colon)}`;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const labelsText = (labels: Record<string, string>) =>
  `{${Object.entries(labels)
    .map(([name, value]) => `${name}="${escapeLabel(value)}"`)
    .join(',')}}`;

export class RelaySeries {
  /** Route label → model → series (no key string built per request). */
  private readonly series = new Map<string, Map<string, Series>>();

  observe(observation: RelayObservation): void {
    const route = routeLabel(observation.route);
    let byModel = this.series.get(route);
    if (!byModel) this.series.set(route, (byModel = new Map()));
    let series = byModel.get(observation.model);
    if (!series) {
      series = {
        route,
        model: observation.model,
        requests: new Map(),
        duration: new LatencyHistogram(),
        firstByte: new LatencyHistogram(),
        promptTokens: 0,
        completionTokens: 0,
        quota: 0,
      };
      byModel.set(observation.model, series);
    }
    const requestKey = observation.channelId === null ? -observation.status : observation.channelId * 1000 + observation.status;
    const requests = series.requests.get(requestKey);
    if (requests) requests.count += 1;
    else
      series.requests.set(requestKey, {
        channel: observation.channelId === null ? 'none' : String(observation.channelId),
        status: String(observation.status),
        count: 1,
      });
    series.duration.observe(observation.durationMs / 1000);
    if (observation.firstByteMs !== undefined && observation.firstByteMs > 0) series.firstByte.observe(observation.firstByteMs / 1000);
    if (observation.promptTokens) series.promptTokens += observation.promptTokens;
    if (observation.completionTokens) series.completionTokens += observation.completionTokens;
    if (observation.quota) series.quota += observation.quota;
  }

  /** The exposition text of the relay's counters and histograms. */
  text(): string {
    const all = [...this.series.values()].flatMap((byModel) => [...byModel.values()]);
    const lines: string[] = [];
    const header = (name: string, help: string, type: string) => lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    header('modelgate_relay_requests_total', 'Relayed requests by route, model, channel and answered status', 'counter');
    for (const series of all) {
      for (const { channel, status, count } of series.requests.values()) {
        lines.push(`modelgate_relay_requests_total${labelsText({ route: series.route, model: series.model, channel, status })} ${count}`);
      }
    }
    const histogram = (name: string, help: string, pick: (series: Series) => LatencyHistogram) => {
      header(name, help, 'histogram');
      for (const series of all) {
        const values = pick(series);
        if (values.count === 0) continue;
        const labels = { route: series.route, model: series.model };
        let cumulative = 0;
        latencyBuckets.forEach((bound, index) => {
          cumulative += values.buckets[index]!;
          lines.push(`${name}_bucket${labelsText({ ...labels, le: String(bound) })} ${cumulative}`);
        });
        lines.push(
          `${name}_bucket${labelsText({ ...labels, le: '+Inf' })} ${values.count}`,
          `${name}_sum${labelsText(labels)} ${values.sum}`,
          `${name}_count${labelsText(labels)} ${values.count}`,
        );
      }
    };
    histogram(
      'modelgate_relay_request_duration_seconds',
      'Time from receiving a relayed request to its settled answer',
      (series) => series.duration,
    );
    histogram('modelgate_relay_time_to_first_token_seconds', 'Streams: time to the first byte of the answer', (series) => series.firstByte);
    header('modelgate_relay_tokens_total', 'Tokens billed, by model and kind (prompt, completion)', 'counter');
    const tokens = new Map<string, { prompt: number; completion: number }>();
    const quota = new Map<string, number>();
    for (const series of all) {
      const sum = tokens.get(series.model) ?? { prompt: 0, completion: 0 };
      sum.prompt += series.promptTokens;
      sum.completion += series.completionTokens;
      tokens.set(series.model, sum);
      quota.set(series.model, (quota.get(series.model) ?? 0) + series.quota);
    }
    for (const [model, sum] of tokens) {
      lines.push(
        `modelgate_relay_tokens_total${labelsText({ model, kind: 'prompt' })} ${sum.prompt}`,
        `modelgate_relay_tokens_total${labelsText({ model, kind: 'completion' })} ${sum.completion}`,
      );
    }
    header('modelgate_relay_quota_total', 'Quota billed, by model', 'counter');
    for (const [model, sum] of quota) lines.push(`modelgate_relay_quota_total${labelsText({ model })} ${sum}`);
    return `${lines.join('\n')}\n`;
  }
}
