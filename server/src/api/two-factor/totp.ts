import { generateSecret, generateURI, verify } from 'otplib';

/**
 * RFC 6238 with the defaults every authenticator app reads from an otpauth:// URI: SHA-1, six
 * digits, 30-second steps, a 160-bit secret. A code of the current step or one step either side is
 * accepted (clock drift); which step it was is answered so the caller can refuse it next time.
 */
const toleranceSeconds = 30;

export const newTotpSecret = (): string => generateSecret({ length: 20 });

export const totpUri = (issuer: string, account: string, secret: string): string => generateURI({ issuer, label: account, secret });

/** Six digits, spaces ignored (apps show `123 456`); anything else is not a TOTP code. */
export function totpCodeOf(input: string): string | null {
  const digits = input.replace(/\s+/g, '');
  return /^\d{6}$/.test(digits) ? digits : null;
}

/** The time-step the code belongs to, or null when it matches none in the window. */
export async function matchTotpStep(secret: string, code: string, nowSeconds = Date.now() / 1000): Promise<number | null> {
  const result = await verify({ secret, token: code, epoch: nowSeconds, epochTolerance: toleranceSeconds });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}
