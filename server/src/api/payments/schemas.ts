import { z } from 'zod';

/**
 * POST /api/stripe/webhook: a Stripe event, documented here; the handler reads the raw bytes, checks
 * `Stripe-Signature` over them and only then parses them (the SDK's constructEvent).
 */
export const stripeEventBody = z.object({
  id: z.string(),
  object: z.literal('event'),
  type: z.string(),
  created: z.number(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
