import type { AppContext } from '../../context.js';
import { invalidInput } from '../../lib/errors.js';

export const challengeExpiredMessage = 'Passkey 请求已过期，请重试';

/** What a challenge was issued for: a registration or sign-in ceremony (of one user, when known). */
export interface ChallengeScope {
  purpose: 'register' | 'sign-in' | 'second-step';
  userId: number;
}

export const challengeTtlSeconds = 300;
const challengeKey = (challenge: string) => `passkey:challenge:${challenge}`;

/** Keeps a ceremony's challenge in the cache (any instance can finish it) for five minutes. */
export async function keepChallenge(ctx: AppContext, challenge: string, scope: ChallengeScope): Promise<void> {
  await ctx.cache.set(challengeKey(challenge), JSON.stringify(scope), challengeTtlSeconds);
}

/**
 * Spends a challenge the browser signed: it must have been issued here for this purpose (and user)
 * and not spent before. Exactly one caller spends it, even racing on several instances (the
 * cache's atomic counter decides). Used as simplewebauthn's `expectedChallenge` check.
 */
export async function spendChallenge(ctx: AppContext, challenge: string, scope: ChallengeScope): Promise<boolean> {
  if (challenge.length === 0 || challenge.length > 256) return false;
  const stored = await ctx.cache.get(challengeKey(challenge));
  if (stored === null || stored !== JSON.stringify(scope)) return false;
  if ((await ctx.cache.hit(`passkey:challenge-used:${challenge}`, challengeTtlSeconds)) !== 1) return false;
  await ctx.cache.del(challengeKey(challenge));
  return true;
}

/** The challenge inside a response's clientDataJSON (base64url JSON), or '' when unreadable. */
export function challengeOf(clientDataJSON: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed.challenge === 'string' ? parsed.challenge : '';
  } catch {
    return '';
  }
}

/** Refuses a response whose challenge is not a live one of this scope (before any verification work). */
export async function assertChallenge(ctx: AppContext, clientDataJSON: string, scope: ChallengeScope): Promise<string> {
  const challenge = challengeOf(clientDataJSON);
  if (!(await spendChallenge(ctx, challenge, scope))) throw invalidInput(challengeExpiredMessage);
  return challenge;
}
