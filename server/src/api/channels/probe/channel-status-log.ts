import { LogType } from '@modelgate/shared';
import type { AppContext } from '../../../context.js';
import { nowSeconds } from '../../../db/index.js';

/** A status change a channel test or a balance refresh made, and why. */
export interface ChannelStatusChange {
  channelId: number;
  channelName: string;
  /** true: auto-disabled → enabled; false: enabled → auto-disabled. */
  isEnabled: boolean;
  reason: string;
}

/** The text of the change, as the usage log shows it (translated when read). */
export function describeChannelStatusChange(change: ChannelStatusChange): string {
  return change.isEnabled
    ? `渠道「${change.channelName}」（#${change.channelId}）测试通过，已自动启用`
    : `渠道「${change.channelName}」（#${change.channelId}）已自动禁用，原因：${change.reason}`;
}

/**
 * Writes a system log row (type 4) for the change: admins find it in the usage log, filtered by
 * type or by the channel's id. It belongs to no user (user_id 0).
 */
export async function recordChannelStatusChange(ctx: AppContext, change: ChannelStatusChange): Promise<void> {
  await ctx.storage.db
    .insertInto('logs')
    .values({
      user_id: 0,
      created_at: nowSeconds(),
      type: LogType.system,
      content: describeChannelStatusChange(change),
      channel_id: change.channelId,
    })
    .execute();
}
