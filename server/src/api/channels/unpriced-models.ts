import type { AppContext } from '../../context.js';
import { findModelPricing } from '../../relay/billing/pricing.js';

/**
 * The models of a channel (its comma-separated `models`) that neither ModelPrice nor ModelRatio
 * covers: the relay refuses them with model_price_error, so a save answers them and the console
 * points the admin to the "models without a price" editor. Empty in self-use mode, where unpriced
 * models are served free.
 */
export function findUnpricedModels(ctx: AppContext, models: string): string[] {
  if (ctx.options.bool('SelfUseModeEnabled')) return [];
  const names = new Set(
    models
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
  return [...names].filter((name) => !findModelPricing(ctx.options, name).isKnown).sort();
}
