import type { PeriodUnit } from '@modelgate/shared';

const daySeconds = 24 * 60 * 60;

/**
 * `count` × `unit` after `from` (unix seconds), in UTC. Months and years keep the day of the month
 * and clamp it to the month's last day (Jan 31 + 1 month = Feb 28 or 29), as card subscriptions do.
 */
export function addPeriod(from: number, unit: PeriodUnit, count: number): number {
  if (unit === 'day') return from + count * daySeconds;
  if (unit === 'week') return from + count * 7 * daySeconds;
  const date = new Date(from * 1000);
  const months = unit === 'month' ? count : count * 12;
  const target = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

export const isPeriodUnit = (value: string): value is PeriodUnit =>
  value === 'day' || value === 'week' || value === 'month' || value === 'year';
