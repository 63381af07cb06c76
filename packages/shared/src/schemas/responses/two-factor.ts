import { z } from 'zod';

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
