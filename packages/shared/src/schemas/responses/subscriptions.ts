import { z } from 'zod';
import { fundingPreferences, periodUnits } from '../subscriptions.js';

/** A plan as the API answers it (GET /api/subscription/plans, admin plan routes): models and groups as lists, empty covers all. */
export const planSchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  /** Money per period, in `currency`. */
  price: z.number(),
  /** StripeCurrency, lower case (usd when unset). */
  currency: z.string(),
  period_unit: z.enum(periodUnits),
  period_count: z.number().int(),
  /** Quota granted at the start of each period. */
  quota: z.number().int(),
  models: z.array(z.string()),
  groups: z.array(z.string()),
  enabled: z.boolean(),
  sort_order: z.number().int(),
});
export type Plan = z.infer<typeof planSchema>;

/** A user's subscription: a copy of the plan's terms when it started, and where its current period stands. */
export const userSubscriptionSchema = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int(),
  plan_id: z.number().int(),
  plan_name: z.string(),
  /** Who started it: bought by card (`stripe`) or granted by an admin. */
  source: z.enum(['stripe', 'admin']),
  /** `expired` once it ended. */
  status: z.enum(['active', 'expired']),
  period_unit: z.enum(periodUnits),
  period_count: z.number().int(),
  period_quota: z.number().int(),
  remaining_quota: z.number().int(),
  models: z.array(z.string()),
  groups: z.array(z.string()),
  period_start: z.number().int(),
  period_end: z.number().int(),
  /** When it ends (0: it renews with no planned end). */
  ends_at: z.number().int(),
  cancelled_at: z.number().int(),
  /** Its gateway renews it (active, no planned end). */
  renews: z.boolean(),
  /** It pays for calls now (active, inside its period). */
  is_funding: z.boolean(),
  created_time: z.number().int(),
});
export type UserSubscription = z.infer<typeof userSubscriptionSchema>;

/** GET /api/subscription/self and /admin/user/:id: a user's funding preference and subscriptions (active first, then the ten latest ended). */
export const subscriptionsOfUserSchema = z.strictObject({
  billing_preference: z.enum(fundingPreferences),
  subscriptions: z.array(userSubscriptionSchema),
});
export type SubscriptionsOfUser = z.infer<typeof subscriptionsOfUserSchema>;

/** A gateway's checkout page to send the buyer to (POST /api/subscription/stripe/pay, /api/user/stripe/pay). */
export const payLinkSchema = z.strictObject({ pay_link: z.string() });
export type PayLink = z.infer<typeof payLinkSchema>;
