import { z } from 'zod';

/**
 * Response building blocks. Every /api answer is the envelope {success, message, data}; each route
 * declares the schema of its `data` (docs/api-contract.md), and the console takes its types from them.
 */

/** One page of a list: the items, the page asked for, its size and the total. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.strictObject({ items: z.array(item), page: z.number().int(), page_size: z.number().int(), total: z.number().int() });

export type Page<T> = { items: T[]; page: number; page_size: number; total: number };

/** `data` of a route that answers only success and message. */
export const noData = z.null();

/** The envelope of a route whose `data` is `data`; `beside` declares fields a few routes answer next to it (a channel test's `time`). */
export const envelopeOf = <T extends z.ZodType>(data: T, beside: z.ZodRawShape = {}) =>
  z.strictObject({ success: z.boolean(), message: z.string(), data, ...beside });

/** A refusal answered with 200 (new-api's way): success false, the message, no data. */
export const failureEnvelope = z.strictObject({ success: z.literal(false), message: z.string(), data: z.unknown().optional() });
