import { z } from 'zod';
import { pageOf } from '../envelope.js';

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

/** One page of users for the admin list (GET /api/user/, /api/user/search). */
export const adminUserPageSchema = pageOf(adminUserSchema);

/** A user for the admin editor (GET /api/user/:id): the admin view and the second factors it can reset. */
export const adminUserDetailSchema = adminUserSchema.extend({ two_fa_enabled: z.boolean(), passkey_count: z.number().int() });
export type AdminUserDetail = z.infer<typeof adminUserDetailSchema>;

/** The id of an account just created (POST /api/user/). */
export const createdUserSchema = z.strictObject({ id: z.number().int() });

/** A managed user's status and role after the action (POST /api/user/manage). */
export const managedUserSchema = z.strictObject({ status: z.number().int(), role: z.number().int() });
export type ManagedUser = z.infer<typeof managedUserSchema>;

/** What the console stores of the signed-in user (sign-in, setup). */
export const sessionUserSchema = z.strictObject({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  group: z.string(),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

/** A signed-in admin who must still enrol a second factor (TwoFactorRequiredForAdmins). */
export const enrollingUserSchema = sessionUserSchema.extend({ require_2fa_setup: z.literal(true) });

/** The first step's answer for a user with a second factor: no session yet, these factors may follow. */
export const secondStepRequestSchema = z.strictObject({ require_2fa: z.literal(true), totp: z.boolean(), passkey: z.boolean() });
export type SecondStepRequest = z.infer<typeof secondStepRequestSchema>;

/** A sign-in's first step (POST /api/user/login): the user, the user who must enrol, or the second step. */
export const loginAnswerSchema = z.union([sessionUserSchema, enrollingUserSchema, secondStepRequestSchema]);
export type LoginAnswer = z.infer<typeof loginAnswerSchema>;

/** A new system access token (GET /api/user/token), or the caller's invite code (GET /api/user/aff). */
export const userSecretSchema = z.string().min(1);

/** The new random password a mailed reset link sets (POST /api/user/reset). */
export const resetPasswordAnswerSchema = z.string().min(1);
