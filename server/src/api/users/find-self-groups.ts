import type { AppContext } from '../../context.js';

export interface GroupInfo {
  desc: string;
  ratio: number;
}

/** Groups the user may pick (UserUsableGroups) plus their own, each with its GroupRatio. */
export function findSelfGroups(ctx: AppContext, ownGroup: string): Record<string, GroupInfo> {
  const usable = ctx.options.json<Record<string, string>>('UserUsableGroups');
  const ratios = ctx.options.json<Record<string, number>>('GroupRatio');
  const groups: Record<string, GroupInfo> = {};
  const ratioOf = (group: string) => (Object.hasOwn(ratios, group) ? Number(ratios[group]) : 1);
  for (const [group, desc] of Object.entries(usable)) groups[group] = { desc: String(desc), ratio: ratioOf(group) };
  if (!Object.hasOwn(groups, ownGroup)) groups[ownGroup] = { desc: '用户分组', ratio: ratioOf(ownGroup) };
  return groups;
}
