import { z } from 'zod';

/** A group the caller may use (GET /api/user/self/groups): its description and ratio; `auto`'s ratio is the word 自动. */
export const selfGroupSchema = z.strictObject({ desc: z.string(), ratio: z.union([z.number(), z.string()]) });
export const selfGroupsSchema = z.record(z.string(), selfGroupSchema);
export type SelfGroup = z.infer<typeof selfGroupSchema>;

/** Model names the caller's group can use (GET /api/user/models). */
export const userModelsSchema = z.array(z.string());
