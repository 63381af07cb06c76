import type { AppContext } from '../../context.js';
import { translate, type Language } from '../../lib/i18n/index.js';

export interface GroupInfo {
  desc: string;
  /** The group's ratio; for `auto` the word 自动 (its ratio is that of the group each call uses), as new-api. */
  ratio: number | string;
}

/**
 * Groups the user may pick (UserUsableGroups) plus their own, each with its GroupRatio; the default
 * descriptions in the viewer's language (an admin's own stay as written).
 */
export function findSelfGroups(ctx: AppContext, ownGroup: string, language: Language): Record<string, GroupInfo> {
  const usable = ctx.options.json<Record<string, string>>('UserUsableGroups');
  const ratios = ctx.options.json<Record<string, number>>('GroupRatio');
  const groups: Record<string, GroupInfo> = {};
  const ratioOf = (group: string) => (Object.hasOwn(ratios, group) ? Number(ratios[group]) : 1);
  for (const [group, desc] of Object.entries(usable)) {
    groups[group] = { desc: translate(String(desc), language), ratio: group === 'auto' ? translate('自动', language) : ratioOf(group) };
  }
  if (!Object.hasOwn(groups, ownGroup)) groups[ownGroup] = { desc: translate('用户分组', language), ratio: ratioOf(ownGroup) };
  return groups;
}
