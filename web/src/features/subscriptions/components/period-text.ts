import type { TFunction } from 'i18next';

/** "month", "3 days": a plan's period in the console's language. */
export const periodText = (t: TFunction, unit: string, count: number): string =>
  count === 1 ? t(`subscriptions.per.${unit}`) : t(`subscriptions.perMany.${unit}`, { count });
