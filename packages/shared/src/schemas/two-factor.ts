import { z } from 'zod';

/** Request rules of two-factor sign-in and passkeys, shared by the server and the console. */
export const twoFactorMessages = {
  codeRequired: '请输入验证码',
} as const;

/** A TOTP code (six digits) or a recovery code (`xxxxx-xxxxx`); the server tells which. */
export const secondFactorCodeSchema = z
  .object({ code: z.string().max(64).default('') })
  .refine((input) => input.code.trim() !== '', { message: twoFactorMessages.codeRequired });

export const passkeyNameMaxLength = 64;

export const passkeyNameSchema = z.object({
  name: z.string().trim().max(passkeyNameMaxLength).default(''),
});

export type SecondFactorCodeInput = z.infer<typeof secondFactorCodeSchema>;
export type SecondFactorCodePayload = z.input<typeof secondFactorCodeSchema>;
export type PasskeyNamePayload = z.input<typeof passkeyNameSchema>;
