import { defaultGroup } from '@modelgate/shared';
import type { RelayFacade } from '../../relay/facade.js';
import type { AppContext } from '../../context.js';
import { translate, type Language } from '../../lib/i18n/index.js';
import { findModelPricing, findUserGroupRatio } from '../../relay/billing/pricing.js';

export interface PricingEntry {
  model_name: string;
  quota_type: 0 | 1;
  /** null when the model has neither a ratio nor a price (is_priced false): never shown as free. */
  model_ratio: number | null;
  completion_ratio: number | null;
  model_price: number | null;
  enable_groups: string[];
  /** A ratio or a fixed price is set (ModelRatio / ModelPrice). */
  is_priced: boolean;
  /** The viewer can call it: priced (or self-use mode) and an enabled channel serves it in one of the viewer's groups. */
  is_available: boolean;
}

/** Whose groups availability is judged by: a signed-in user's group, or anonymous (the default group). */
export interface PricingViewer {
  group: string;
}

/** Groups the viewer may call with: UserUsableGroups plus their own group; anonymous viewers the default group. */
function viewerGroups(ctx: AppContext, viewer: PricingViewer | null): Set<string> {
  if (!viewer) return new Set([defaultGroup]);
  const groups = new Set(Object.keys(ctx.options.json<Record<string, string>>('UserUsableGroups')));
  groups.add(viewer.group || defaultGroup);
  return groups;
}

/** The auto group's order for the viewer (AutoGroups among their usable groups), when they may use `auto`. */
function viewerAutoGroups(ctx: AppContext, groups: Set<string>): string[] {
  if (!groups.has('auto')) return [];
  const order = ctx.options.json<unknown>('AutoGroups');
  return Array.isArray(order)
    ? [...new Set(order.filter((group): group is string => typeof group === 'string' && group !== 'auto' && groups.has(group)))]
    : [];
}

/** GroupRatio with the viewer's special ratios (GroupGroupRatio[their group]) in place, and which ones those are. */
function viewerGroupRatios(ctx: AppContext, viewer: PricingViewer | null) {
  const groupRatio = { ...ctx.options.json<Record<string, number>>('GroupRatio') };
  const special: Record<string, number> = {};
  if (viewer) {
    for (const group of Object.keys(groupRatio)) {
      const ratio = findUserGroupRatio(ctx.options, viewer.group || defaultGroup, group);
      if (ratio !== null) groupRatio[group] = special[group] = ratio;
    }
  }
  return { groupRatio, special };
}

/**
 * Every model some enabled channel serves, with its price, the groups that can use it, and whether
 * the viewer can; the groups' default descriptions in the viewer's language.
 */
export function findPricing(ctx: AppContext, channels: RelayFacade['catalogue'], viewer: PricingViewer | null, language: Language) {
  const groups = viewerGroups(ctx, viewer);
  const isUnpricedUsable = ctx.options.bool('SelfUseModeEnabled');
  const autoGroups = viewerAutoGroups(ctx, groups);
  const { groupRatio, special } = viewerGroupRatios(ctx, viewer);
  const data: PricingEntry[] = channels.allModels().map((model) => {
    const pricing = findModelPricing(ctx.options, model);
    const enableGroups = channels.groupsOf(model).sort();
    const isServed = enableGroups.some((group) => groups.has(group));
    // An `auto` token reaches the model when one of its auto groups serves it.
    if (autoGroups.some((group) => enableGroups.includes(group))) enableGroups.push('auto');
    return {
      model_name: model,
      quota_type: pricing.quotaType,
      model_ratio: pricing.isKnown ? pricing.modelRatio : null,
      completion_ratio: pricing.isKnown ? pricing.completionRatio : null,
      model_price: pricing.isKnown ? Math.max(0, pricing.modelPrice) : null,
      enable_groups: enableGroups,
      is_priced: pricing.isKnown,
      is_available: isServed && (pricing.isKnown || isUnpricedUsable),
    };
  });
  return {
    data,
    /** GroupRatio, the viewer's special ratios (GroupGroupRatio) in place. */
    group_ratio: groupRatio,
    /** The groups whose ratio is the viewer's special one (new-api's GroupGroupRatio). */
    special_group_ratio: special,
    /** The order an `auto` token tries the viewer's groups in (empty when they may not use auto). */
    auto_groups: autoGroups,
    usable_group: Object.fromEntries(
      Object.entries(ctx.options.json<Record<string, string>>('UserUsableGroups')).map(([group, desc]) => [
        group,
        translate(String(desc), language),
      ]),
    ),
  };
}
