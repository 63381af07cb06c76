import type { AppContext } from '../../context.js';
import { optionRegistry } from '../../options/registry.js';

const pricingKeys = ['ModelRatio', 'CompletionRatio', 'CacheRatio', 'CacheCreationRatio', 'ModelPrice'] as const;

/** Restores the four pricing options to the built-in defaults (options/default-ratios.ts). */
export async function resetModelRatios(ctx: AppContext): Promise<void> {
  for (const key of pricingKeys) await ctx.options.set(key, optionRegistry[key].default);
}
