import { z } from 'zod';

/** One model of GET /api/pricing: its price, the groups that serve it, and whether the viewer can call it. */
export const pricingEntrySchema = z.strictObject({
  model_name: z.string(),
  /** 0: by ratio (tokens), 1: a fixed price per request. */
  quota_type: z.union([z.literal(0), z.literal(1)]),
  /** null when the model has neither a ratio nor a price (is_priced false): never shown as free. */
  model_ratio: z.number().nullable(),
  completion_ratio: z.number().nullable(),
  model_price: z.number().nullable(),
  enable_groups: z.array(z.string()),
  /** A ratio or a fixed price is set (ModelRatio / ModelPrice). */
  is_priced: z.boolean(),
  /** Priced (or self-use mode) and an enabled channel serves it in one of the viewer's groups. */
  is_available: z.boolean(),
});
export type PricingEntry = z.infer<typeof pricingEntrySchema>;

/** GET /api/pricing's data: every model some enabled channel serves. */
export const pricingListSchema = z.array(pricingEntrySchema);

/** What GET /api/pricing answers beside `data` (new-api's shape): the viewer's group ratios and usable groups. */
export const pricingBeside = {
  /** GroupRatio, the viewer's special ratios (GroupGroupRatio) in place. */
  group_ratio: z.record(z.string(), z.number()),
  /** The groups whose ratio is the viewer's special one. */
  special_group_ratio: z.record(z.string(), z.number()),
  /** The order an `auto` token tries the viewer's groups in (empty when they may not use auto). */
  auto_groups: z.array(z.string()),
  /** The groups the viewer may choose, with their descriptions in the viewer's language. */
  usable_group: z.record(z.string(), z.string()),
};

/** The whole answer of GET /api/pricing, as the console reads it. */
export const pricingAnswerSchema = z.strictObject({ data: pricingListSchema, ...pricingBeside });
export type PricingAnswer = z.infer<typeof pricingAnswerSchema>;
