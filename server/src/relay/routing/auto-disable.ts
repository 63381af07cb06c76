import type { AppContext } from '../../context.js';
import { redactSecrets, type UpstreamError } from '../errors.js';
import type { RelayState } from '../state.js';
import type { RelayChannel } from './channel-index.js';

const autoDisabled = 3;

/** Whether a failure means the channel's key is unusable (401/403 or a configured keyword). */
export function isKeyFailure(ctx: AppContext, error: UpstreamError): boolean {
  if (error.upstreamStatus === 401 || error.upstreamStatus === 403) return true;
  const message = error.message.toLowerCase();
  const keywords = ctx.options
    .get('AutomaticDisableKeywords')
    .split('\n')
    .map((word) => word.trim().toLowerCase())
    .filter(Boolean);
  return keywords.some((word) => message.includes(word));
}

/**
 * Auto-disable (status 3 with other_info.status_reason/status_time) when AutomaticDisableChannelEnabled
 * is on and the channel has auto_ban; then every instance rebuilds its channel index. Runs off the
 * request's critical path: the in-memory status changes at once, the write follows.
 */
export function disableChannelIfBanned(ctx: AppContext, relay: RelayState, channel: RelayChannel, error: UpstreamError): void {
  if (!ctx.options.bool('AutomaticDisableChannelEnabled') || !channel.isAutoBan || channel.status !== 1) return;
  if (!isKeyFailure(ctx, error)) return;
  channel.status = autoDisabled;
  // Shown to admins: an echoed channel key is taken out.
  const reason = `status ${error.upstreamStatus}: ${redactSecrets(error.message)}`.slice(0, 500);
  void disableChannel(ctx, channel.id, reason).catch(() => undefined);
}

/**
 * Enabled (1) → auto-disabled (3) with the reason; answers whether this call changed it (a channel
 * an admin disabled by hand, or one already disabled, is left as it is).
 */
export async function disableChannel(ctx: AppContext, channelId: number, reason: string): Promise<boolean> {
  const otherInfo = JSON.stringify({ status_reason: reason, status_time: Math.floor(Date.now() / 1000) });
  const result = await ctx.storage.db
    .updateTable('channels')
    .set({ status: autoDisabled, other_info: otherInfo })
    .where('id', '=', channelId)
    .where('status', '=', 1)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await ctx.storage.db.updateTable('abilities').set({ enabled: 0 }).where('channel_id', '=', channelId).execute();
  await ctx.bus.publish('channels');
  return true;
}

/** Auto-disabled (3) → enabled (1); answers whether this call changed it (never a channel disabled by hand). */
export async function enableChannel(ctx: AppContext, channelId: number): Promise<boolean> {
  // Enabled again: every key is back (an auto-disable wrote other_info without disabled_keys).
  const result = await ctx.storage.db
    .updateTable('channels')
    .set({ status: 1 })
    .where('id', '=', channelId)
    .where('status', '=', autoDisabled)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  await ctx.storage.db.updateTable('abilities').set({ enabled: 1 }).where('channel_id', '=', channelId).execute();
  await ctx.bus.publish('channels');
  return true;
}
