import { z } from 'zod';

/**
 * One entry of the audit trail as GET /api/audit answers it (docs/audit.md): who, from where, which
 * route and entity, the status, before and after as JSON text with secrets removed ('' for none),
 * and the hash chain.
 */
export const auditEntrySchema = z.strictObject({
  id: z.number().int(),
  created_at: z.number().int(),
  user_id: z.number().int(),
  username: z.string(),
  role: z.number().int(),
  ip: z.string(),
  method: z.string(),
  route: z.string(),
  entity: z.string(),
  entity_id: z.string(),
  action: z.string(),
  before: z.string(),
  after: z.string(),
  status: z.number().int(),
  prev_hash: z.string(),
  hash: z.string(),
});

export type AuditEntry = z.infer<typeof auditEntrySchema>;
