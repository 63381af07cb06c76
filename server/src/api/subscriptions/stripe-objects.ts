import { z } from 'zod';

/**
 * The parts of Stripe's Subscription and Invoice objects the gateway reads, parsed leniently (they
 * come signed, but their shape moves between API versions: since 2025-03-31 the period is on the
 * subscription's items and an invoice names its subscription under `parent.subscription_details`).
 */
const period = z.number().int().nonnegative().nullish();
const idOrObject = z.union([z.string(), z.object({ id: z.string() }).transform((value) => value.id)]).nullish();

const subscriptionSchema = z.object({
  id: z.string(),
  status: z.string().nullish(),
  cancel_at_period_end: z.boolean().nullish(),
  current_period_start: period,
  current_period_end: period,
  items: z.object({ data: z.array(z.object({ current_period_start: period, current_period_end: period })).nullish() }).nullish(),
});

const invoiceSchema = z.object({
  id: z.string(),
  subscription: idOrObject,
  parent: z.object({ subscription_details: z.object({ subscription: idOrObject }).nullish() }).nullish(),
  lines: z.object({ data: z.array(z.object({ period: z.object({ start: period, end: period }).nullish() })).nullish() }).nullish(),
});

export interface StripeSubscriptionFacts {
  id: string;
  status: string;
  cancelAtPeriodEnd: boolean;
  periodStart: number;
  periodEnd: number;
}

/** A Subscription's id, status and current period (0 when Stripe sent none). */
export function subscriptionFacts(value: unknown): StripeSubscriptionFacts | null {
  const parsed = subscriptionSchema.safeParse(value);
  if (!parsed.success) return null;
  const sub = parsed.data;
  const item = sub.items?.data?.[0];
  return {
    id: sub.id,
    status: sub.status ?? '',
    cancelAtPeriodEnd: sub.cancel_at_period_end ?? false,
    periodStart: item?.current_period_start ?? sub.current_period_start ?? 0,
    periodEnd: item?.current_period_end ?? sub.current_period_end ?? 0,
  };
}

/** A paid Invoice's subscription and the service period it paid for (its first line's). */
export function invoiceFacts(value: unknown): { subscriptionId: string; periodStart: number; periodEnd: number } | null {
  const parsed = invoiceSchema.safeParse(value);
  if (!parsed.success) return null;
  const invoice = parsed.data;
  const subscriptionId = invoice.parent?.subscription_details?.subscription ?? invoice.subscription ?? null;
  const line = invoice.lines?.data?.find((entry) => (entry.period?.end ?? 0) > 0);
  if (!subscriptionId || !line?.period?.start || !line.period.end) return null;
  return { subscriptionId, periodStart: line.period.start, periodEnd: line.period.end };
}
