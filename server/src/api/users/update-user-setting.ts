import type { UserSettingInput } from '@modelgate/shared';
import type { AppContext } from '../context.js';

function parseSetting(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Stores notification preferences in users.setting, keeping any other keys already there. */
export async function updateUserSetting(ctx: AppContext, userId: number, input: UserSettingInput): Promise<void> {
  const { db } = ctx.storage;
  const row = await db.selectFrom('users').select('setting').where('id', '=', userId).executeTakeFirstOrThrow();
  const setting = { ...parseSetting(row.setting), ...input };
  await db.updateTable('users').set({ setting: JSON.stringify(setting) }).where('id', '=', userId).execute();
  await ctx.bus.publish('users', String(userId));
}
