import type { AppContext } from '../../context.js';

/** Group names: the keys of GroupRatio. */
export function findGroups(ctx: AppContext): string[] {
  return Object.keys(ctx.options.json<Record<string, number>>('GroupRatio'));
}
