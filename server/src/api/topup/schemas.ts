import { z } from 'zod';

export { redeemCodeSchema, topUpAmountSchema, topUpPaySchema } from '@modelgate/shared';

/** GET /api/user/epay/notify: the gateway's callback; every field is a string and all are signed. */
export const epayNotifyQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())]))
  .transform((query) => Object.fromEntries(
    Object.entries(query).map(([key, value]) => [key, Array.isArray(value) ? (value[0] ?? '') : value]),
  ));
