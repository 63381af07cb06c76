import type { AppContext } from '../../context.js';

/** Model names served by enabled abilities of the user's group. */
export async function findUserModels(ctx: AppContext, group: string): Promise<string[]> {
  const rows = await ctx.storage.db
    .selectFrom('abilities')
    .select('model')
    .distinct()
    .where('group', '=', group)
    .where('enabled', '=', 1)
    .orderBy('model')
    .execute();
  return rows.map((row) => row.model);
}
