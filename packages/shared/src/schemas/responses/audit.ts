import { z } from 'zod';
import { auditEntrySchema } from '../audit.js';
import { pageOf } from '../envelope.js';

/** GET /api/audit's data: a page of the trail, newest first. */
export const auditPageSchema = pageOf(auditEntrySchema);

/** GET /api/audit/verify's data: the chain holds, or the first entry where it breaks and why. */
export const auditVerdictSchema = z.discriminatedUnion('ok', [
  z.strictObject({ ok: z.literal(true), checked: z.number().int() }),
  z.strictObject({
    ok: z.literal(false),
    checked: z.number().int(),
    brokenId: z.number().int().nullable(),
    reason: z.enum(['edited', 'unlinked', 'newest_missing']),
  }),
]);
export type AuditVerdict = z.infer<typeof auditVerdictSchema>;
