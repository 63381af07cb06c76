import { z } from 'zod';

/** The signed-in user a sign-in answers (the console stores it): the session's columns, nothing secret. */
export const signedInUserSchema = z.strictObject({
  id: z.number().int(),
  username: z.string(),
  display_name: z.string(),
  role: z.number().int(),
  status: z.number().int(),
  group: z.string(),
});
export type SignedInUser = z.infer<typeof signedInUserSchema>;

/** A first step's answer for a user with a second factor: no session yet, one of these factors follows. */
export const secondStepRequestSchema = z.strictObject({ require_2fa: z.literal(true), totp: z.boolean(), passkey: z.boolean() });
export type SecondStepRequest = z.infer<typeof secondStepRequestSchema>;

/** A first step's answer (password or third-party account): a second step to take, or the signed-in user (an admin who must enrol is told so). */
export const firstStepAnswerSchema = z.union([
  secondStepRequestSchema,
  signedInUserSchema,
  signedInUserSchema.extend({ require_2fa_setup: z.literal(true) }),
]);
export type FirstStepAnswer = z.infer<typeof firstStepAnswerSchema>;

/** The caller's second factors (GET /api/user/2fa/status). */
export const twoFactorStatusSchema = z.strictObject({
  enabled: z.boolean(),
  /** When TOTP was enrolled (Unix seconds), 0 when it is off. */
  enabled_at: z.number().int(),
  backup_codes_remaining: z.number().int(),
  passkey_enabled: z.boolean(),
  passkey_count: z.number().int(),
  /** An admin who must enrol a second factor (TwoFactorRequiredForAdmins). */
  required: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

/** A TOTP enrolment's new secret and its otpauth:// URI (POST /api/user/2fa/setup). */
export const totpSetupSchema = z.strictObject({ secret: z.string(), otpauth_url: z.string() });
export type TotpSetup = z.infer<typeof totpSetupSchema>;

/** New recovery codes, shown once (POST /api/user/2fa/enable and /backup_codes). */
export const recoveryCodesSchema = z.strictObject({ backup_codes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof recoveryCodesSchema>;
