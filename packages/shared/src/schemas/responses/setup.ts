import { z } from 'zod';
import { sessionUserSchema } from './users.js';

/** First-run state (GET /api/setup): done yet, whether a super admin exists, and the database kind. */
export const setupStatusSchema = z.strictObject({
  status: z.boolean(),
  root_init: z.boolean(),
  database_type: z.enum(['sqlite', 'postgres', 'mysql']),
});
export type SetupStatus = z.infer<typeof setupStatusSchema>;

/** The new root, signed in (POST /api/setup); null when a super admin already existed. */
export const setupAnswerSchema = sessionUserSchema.nullable();
