import { randomInt } from 'node:crypto';
import type { Cache } from '../cache/index.js';
import { randomKey, safeEqual } from '../lib/crypto.js';
import { AppError } from '../lib/errors.js';

/** Codes and reset tokens live 10 minutes; an address may ask for one every 30 seconds. */
export const codeLifetimeSeconds = 600;
export const resendWaitSeconds = 30;

export type CodePurpose = 'verify' | 'reset';

export const codeMessages = {
  tooSoon: `请求过于频繁，请 ${resendWaitSeconds} 秒后再试`,
} as const;

const keyOf = (purpose: CodePurpose, email: string) => `code:${purpose}:${email}`;

/**
 * One-time codes sent by mail: in the cache, so with Redis any instance checks a code another one
 * sent. A new code replaces the previous one; a code is used once (an atomic claim decides which
 * of two simultaneous uses wins) and expires after codeLifetimeSeconds.
 */
export class OneTimeCodes {
  constructor(private readonly cache: Cache) {}

  /** At most one mail per address and purpose per resendWaitSeconds (a 429 otherwise). */
  async claimSendSlot(purpose: CodePurpose, email: string): Promise<void> {
    if ((await this.cache.hit(`code-wait:${purpose}:${email}`, resendWaitSeconds)) > 1) {
      throw new AppError('rate_limited', codeMessages.tooSoon);
    }
  }

  /** A new code for the address: six digits for a typed code, 32 characters for a link token. */
  async issue(purpose: CodePurpose, email: string): Promise<string> {
    const code = purpose === 'verify' ? String(randomInt(0, 1_000_000)).padStart(6, '0') : randomKey(32);
    await this.cache.set(keyOf(purpose, email), code, codeLifetimeSeconds);
    return code;
  }

  /** True once for the right, unexpired code; false for a wrong, expired or already used one. */
  async consume(purpose: CodePurpose, email: string, code: string): Promise<boolean> {
    if (!code || code.length > 64) return false;
    const key = keyOf(purpose, email);
    const stored = await this.cache.get(key);
    if (stored === null || !safeEqual(stored, code)) return false;
    if (!(await this.cache.take(`code-used:${purpose}:${email}:${stored}`, 1, codeLifetimeSeconds))) return false;
    await this.cache.del(key);
    return true;
  }
}
