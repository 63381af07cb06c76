import dayjs from 'dayjs';
import type { QuotaData as QuotaBucket } from '@modelgate/shared';

export type Granularity = 'hour' | 'day' | 'week';
export const granularities: Granularity[] = ['hour', 'day', 'week'];

export const isGranularity = (value: unknown): value is Granularity => granularities.includes(value as Granularity);

export type Metric = 'quota' | 'count' | 'token_used';

/** One chart row per time slot: { label, [model]: value }. */
export type SeriesRow = { label: string; slot: number } & Record<string, number | string>;

const slotOf = (seconds: number, granularity: Granularity): number =>
  granularity === 'hour' ? seconds - (seconds % 3600) : dayjs.unix(seconds).startOf(granularity).unix();

const labelOf = (slot: number, granularity: Granularity): string =>
  dayjs.unix(slot).format(granularity === 'hour' ? 'MM-DD HH:00' : 'YYYY-MM-DD');

/** Buckets summed per time slot and model, oldest first. */
export function seriesOf(buckets: QuotaBucket[], metric: Metric, granularity: Granularity): { rows: SeriesRow[]; models: string[] } {
  const models = [...new Set(buckets.map((bucket) => bucket.model_name))].sort();
  const bySlot = new Map<number, SeriesRow>();
  for (const bucket of buckets) {
    const slot = slotOf(bucket.created_at, granularity);
    let row = bySlot.get(slot);
    if (!row) {
      row = { slot, label: labelOf(slot, granularity) } as SeriesRow;
      for (const model of models) row[model] = 0;
      bySlot.set(slot, row);
    }
    row[bucket.model_name] = (row[bucket.model_name] as number) + bucket[metric];
  }
  return { rows: [...bySlot.values()].sort((a, b) => a.slot - b.slot), models };
}

export function totalsOf(buckets: QuotaBucket[]) {
  return buckets.reduce(
    (sum, bucket) => ({ quota: sum.quota + bucket.quota, count: sum.count + bucket.count, tokens: sum.tokens + bucket.token_used }),
    { quota: 0, count: 0, tokens: 0 },
  );
}

export const palette = ['#1677ff', '#52c41a', '#fa8c16', '#eb2f96', '#722ed1', '#13c2c2', '#faad14', '#2f54eb', '#a0d911', '#f5222d'];
