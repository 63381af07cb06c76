import { readSession } from '../../lib/session.js';
import { revokeSessions } from '../auth/revoke-sessions.js';
import type { AppContext } from '../../context.js';

/**
 * Logout ends the session of the cookie sent, and with it every other session of that user (one
 * per-user session version: "sign out" signs out every browser). A cookie that is not (or no
 * longer) valid changes nothing.
 */
export async function logoutUser(ctx: AppContext, cookie: string | undefined): Promise<void> {
  const session = readSession(ctx.config.sessionSecret, cookie);
  if (!session) return;
  await revokeSessions(ctx.storage.db, session.userId, session.version);
  await ctx.bus.publish('users', String(session.userId));
}
