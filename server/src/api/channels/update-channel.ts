import { ChannelStatus, channelMessages, type UpdateChannelInput } from '@modelgate/shared';
import { forbidden, notFound } from '../../lib/errors.js';
import type { AppContext } from '../../context.js';
import { rebuildAbilities } from './abilities.js';
import { applyTypeDefaults, channelListColumns, channelValuesOf, type ChannelValues } from './channel-values.js';
import { findUnpricedModels } from './unpriced-models.js';
import { checkChannelTypeSupported, checkChannelValues } from './validate-channel.js';

/** other_info without disabled_keys, or null when it has none. */
function withoutDisabledKeys(otherInfo: string | null): string | null {
  try {
    const value: unknown = JSON.parse(otherInfo || '{}');
    if (!value || typeof value !== 'object' || Array.isArray(value) || !('disabled_keys' in value)) return null;
    const { disabled_keys: _dropped, ...rest } = value as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return null;
  }
}

/** Whether an update would send the stored key somewhere else: another base URL or another type (its default host and auth). */
function movesStoredKey(values: ChannelValues, current: { type: number; base_url: string | null }): boolean {
  if (typeof values.key === 'string' && values.key) return false;
  const isTypeChanged = values.type !== undefined && values.type !== current.type;
  const isBaseUrlChanged = values.base_url !== undefined && String(values.base_url ?? '') !== (current.base_url ?? '');
  return isTypeChanged || isBaseUrlChanged;
}

/**
 * PUT /api/channel/: changes the given fields (a status-, priority- or weight-only update included).
 * Answers the channel as listed, with unpriced_models: its models that have no price.
 *
 * Keys leave the server only to the root (routes.ts): an admin who could point a channel at their own
 * server and keep its key would receive the key with the next call or test. So only the root may
 * change a channel's base URL or type while keeping the stored key; an admin gives a new key with it.
 */
export async function updateChannel(ctx: AppContext, input: UpdateChannelInput, caller: { isRoot: boolean }) {
  const { id, ...fields } = input;
  const db = ctx.storage.db;
  const updated = await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('channels')
      .select(['id', 'type', 'status', 'other', 'key', 'base_url', 'other_info'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!current) throw notFound(channelMessages.notFound);
    const type = fields.type ?? current.type;
    // A type without an adapter is never switched to, nor enabled (an already enabled row may still be edited).
    const isTypeChanged = type !== current.type;
    const isBeingEnabled = fields.status === ChannelStatus.enabled && current.status !== ChannelStatus.enabled;
    if (isTypeChanged || isBeingEnabled) checkChannelTypeSupported(type);
    const values = applyTypeDefaults(channelValuesOf(fields), type, fields.other === undefined ? current.other : '');
    if (!caller.isRoot && movesStoredKey(values, current)) throw forbidden(channelMessages.keyNeededToMove);
    if (fields.type !== undefined || fields.key || fields.other !== undefined || fields.base_url !== undefined) {
      const key = typeof values.key === 'string' && values.key ? values.key : current.key;
      // A JSON key (Vertex service account) is one key over several lines; others are one key per line.
      const keys = key.trim().startsWith('{') ? [key] : key.split('\n').filter((part) => part.trim());
      for (const line of keys) {
        checkChannelValues(type, line, String(values.other ?? current.other ?? ''), String(values.base_url ?? current.base_url ?? ''));
      }
    }
    // New keys, or the channel enabled again: keys an auto-ban disabled alone are back in rotation.
    if ((fields.key || isBeingEnabled) && values.other_info === undefined) {
      const otherInfo = withoutDisabledKeys(current.other_info);
      if (otherInfo !== null) values.other_info = otherInfo;
    }
    if (Object.keys(values).length > 0) await trx.updateTable('channels').set(values).where('id', '=', id).execute();
    await rebuildAbilities(trx, [id]);
    return trx
      .selectFrom('channels')
      .select([...channelListColumns])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  });
  await ctx.bus.publish('channels');
  return { ...updated, unpriced_models: findUnpricedModels(ctx, updated.models) };
}
