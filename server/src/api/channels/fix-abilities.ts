import type { AppContext } from '../../context.js';
import { rebuildAbilities } from './abilities.js';

/** POST /api/channel/fix: rebuilds every ability from the channel rows; returns how many channels were fixed. */
export async function fixAbilities(ctx: AppContext): Promise<number> {
  const count = await ctx.storage.db.transaction().execute(async (trx) => {
    await rebuildAbilities(trx, 'all');
    const row = await trx
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  });
  await ctx.bus.publish('channels');
  return count;
}
