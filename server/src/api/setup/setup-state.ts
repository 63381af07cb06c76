import type { AppContext } from '../../context.js';

const doneByStorage = new WeakMap<object, boolean>();

/** Whether first-run setup has happened; once true it is remembered (setup is never undone). */
export async function isSetupDone(ctx: AppContext): Promise<boolean> {
  if (doneByStorage.get(ctx.storage)) return true;
  const row = await ctx.storage.db.selectFrom('setups').select('id').limit(1).executeTakeFirst();
  const done = row !== undefined;
  if (done) doneByStorage.set(ctx.storage, true);
  return done;
}
