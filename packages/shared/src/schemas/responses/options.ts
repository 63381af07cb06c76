import { z } from 'zod';

/** One option the caller may manage, as GET /api/option/ lists it (its value as stored text). */
export const optionEntrySchema = z.strictObject({ key: z.string(), value: z.string() });
export type OptionEntry = z.infer<typeof optionEntrySchema>;

/** GET /api/option/'s data: the non-secret options the caller may manage. */
export const optionListSchema = z.array(optionEntrySchema);
