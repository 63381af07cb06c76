import { z } from 'zod';
import { pageOf } from '../envelope.js';

/** A redemption code as admins read it (GET /api/redemption/...): the key in full, since admins hand codes out. */
export const redemptionSchema = z.strictObject({
  id: z.number().int(),
  /** The admin who created it. */
  user_id: z.number().int(),
  key: z.string(),
  /** 1 unused, 2 disabled, 3 used. */
  status: z.number().int(),
  name: z.string(),
  quota: z.number().int(),
  created_time: z.number().int(),
  redeemed_time: z.number().int(),
  used_user_id: z.number().int(),
  /** 0: never expires. */
  expired_time: z.number().int(),
});
export type Redemption = z.infer<typeof redemptionSchema>;
/** GET /api/redemption/ and /search: one page of live codes, newest first. */
export const redemptionPageSchema = pageOf(redemptionSchema);

/** POST /api/redemption/: the new codes' keys, in creation order. */
export const createdRedemptionKeysSchema = z.array(z.string());
