import { z } from 'zod';

/** A group the caller may use (GET /api/user/self/groups): its description and ratio; `auto`'s ratio is the word 自动. */
export const selfGroupSchema = z.strictObject({ desc: z.string(), ratio: z.union([z.number(), z.string()]) });
export const selfGroupsSchema = z.record(z.string(), selfGroupSchema);
export type SelfGroup = z.infer<typeof selfGroupSchema>;

/** Model names the caller's group can use (GET /api/user/models). */
export const userModelsSchema = z.array(z.string());

/** A user row as an admin sees it (GET /api/user/:id): never the password nor the access token. */
export const adminUserSchema = z.strictObject({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  email: z.string(),
  github_id: z.string(),
  oidc_id: z.string(),
  wechat_id: z.string(),
  telegram_id: z.string(),
  linux_do_id: z.string(),
  quota: z.number().int(),
  used_quota: z.number().int(),
  request_count: z.number().int(),
  group: z.string(),
  aff_code: z.string().nullable(),
  aff_count: z.number().int(),
  aff_quota: z.number().int(),
  aff_history_quota: z.number().int(),
  inviter_id: z.number().int(),
  /** The user's settings as JSON text (the owner's webhook secret removed). */
  setting: z.string(),
  remark: z.string(),
  created_time: z.number().int(),
  deleted_at: z.number().int().nullable(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

/** The caller's own row (GET /api/user/self): the admin view without the admin's remark. */
export const selfUserSchema = adminUserSchema.omit({ remark: true });
export type SelfUser = z.infer<typeof selfUserSchema>;
