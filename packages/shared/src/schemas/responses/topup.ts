import { z } from 'zod';
import { pageOf } from '../envelope.js';

/** POST /api/user/topup: the quota the redeemed code credited. */
export const redeemedQuotaSchema = z.number().int();

/** POST /api/user/amount and /api/user/stripe/amount: the money an amount costs, two decimals ('7.30'). */
export const topUpQuoteSchema = z.string();

/** POST /api/user/pay: the signed form the console posts to the Epay-compatible gateway. */
export const epayFormSchema = z.strictObject({
  /** Where the form is posted. */
  url: z.string(),
  /** The form's fields, signature included. */
  data: z.record(z.string(), z.string()),
});
export type EpayForm = z.infer<typeof epayFormSchema>;

/** A top-up order as its buyer reads it (GET /api/user/topup/self). */
export const topUpSchema = z.strictObject({
  id: z.number().int(),
  user_id: z.number().int(),
  /** $ of quota bought. */
  amount: z.number().int(),
  /** Money paid. */
  money: z.number(),
  trade_no: z.string(),
  payment_method: z.string(),
  /** Which gateway took it: card orders are Stripe's, every other method Epay's. */
  gateway: z.enum(['stripe', 'epay']),
  /** `pending`, `success` or `expired`. */
  status: z.string(),
  create_time: z.number().int(),
  complete_time: z.number().int(),
});
export type TopUp = z.infer<typeof topUpSchema>;
/** GET /api/user/topup/self: one page of the caller's orders, newest first. */
export const topUpPageSchema = pageOf(topUpSchema);

/** A top-up order as admins read it (GET /api/user/topup): with its buyer's username. */
export const adminTopUpSchema = topUpSchema.extend({ username: z.string() });
export type AdminTopUp = z.infer<typeof adminTopUpSchema>;
/** GET /api/user/topup: one page of everyone's orders, newest first. */
export const adminTopUpPageSchema = pageOf(adminTopUpSchema);
