import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { redactSecrets, type UpstreamError } from '../errors.js';
import type { RelayState } from '../state.js';
import { disableChannel, isKeyFailure } from './auto-disable.js';
import type { RelayChannel } from './channel-index.js';

/** A key's name in other_info.disabled_keys: never the key itself (admins see other_info). */
export const keyFingerprint = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

function parseOtherInfo(text: string | null | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * A multi-key channel whose key fails with a key error (401/403 or an AutomaticDisableKeywords
 * match) loses that key alone, when auto-ban applies (AutomaticDisableChannelEnabled and the
 * channel's auto_ban): taken out of this instance's rotation at once, recorded in
 * other_info.disabled_keys (fingerprint → reason, time) for every instance, and the channel is
 * disabled only when no key is left. Answers whether the failure was handled here.
 */
export function disableKeyIfBanned(ctx: AppContext, relay: RelayState, channel: RelayChannel, key: string, error: UpstreamError): boolean {
  if (channel.keys.length <= 1) return false;
  if (!ctx.options.bool('AutomaticDisableChannelEnabled') || !channel.isAutoBan || !isKeyFailure(ctx, error)) return true;
  const index = channel.keys.indexOf(key);
  if (index < 0) return true;
  channel.keys = channel.keys.filter((other) => other !== key);
  const reason = `status ${error.upstreamStatus}: ${redactSecrets(error.message)}`.slice(0, 500);
  void recordDisabledKey(ctx, relay, channel.id, key, reason).catch((failure: unknown) =>
    relay.log.error({ err: failure, channelId: channel.id }, 'disabling a channel key failed'),
  );
  return true;
}

async function recordDisabledKey(ctx: AppContext, relay: RelayState, channelId: number, key: string, reason: string): Promise<void> {
  const row = await ctx.storage.db
    .selectFrom('channels')
    .select(['key', 'other_info', 'status'])
    .where('id', '=', channelId)
    .executeTakeFirst();
  if (!row || row.status !== 1) return;
  const otherInfo = parseOtherInfo(row.other_info);
  const disabled = { ...(otherInfo.disabled_keys as Record<string, unknown> | undefined) };
  const time = Math.floor(Date.now() / 1000);
  disabled[keyFingerprint(key)] = { reason, time };
  const keys = row.key
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const left = keys.filter((line) => disabled[keyFingerprint(line)] === undefined);
  relay.log.warn({ channelId, key: keyFingerprint(key), keysLeft: left.length }, 'channel key disabled');
  if (left.length === 0) {
    await disableChannel(ctx, channelId, `all ${keys.length} keys disabled; last: ${reason}`);
    return;
  }
  await ctx.storage.db
    .updateTable('channels')
    .set({ other_info: JSON.stringify({ ...otherInfo, disabled_keys: disabled }) })
    .where('id', '=', channelId)
    .execute();
  await ctx.bus.publish('channels');
}
