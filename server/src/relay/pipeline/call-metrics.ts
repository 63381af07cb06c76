import type { AppContext } from '../../context.js';
import { findModelPricing } from '../billing/pricing.js';
import { clientStatus, RelayError } from '../errors.js';

/**
 * Every relayed call in the Prometheus metrics (metrics/relay-series.ts), by one rule: chat and the
 * other endpoints (relay-call.ts), task submits (tasks/submit.ts) and Realtime sessions
 * (realtime/session.ts, status 101). A model nobody priced is labelled `other`, so a caller cannot
 * add series by inventing names. Callers check `ctx.metrics.isEnabled` first: off, nothing is built.
 * `isPriced` when the caller already looked the price up.
 */
export function modelLabel(ctx: AppContext, model: string, isPriced?: boolean): string {
  return (isPriced ?? findModelPricing(ctx.options, model).isKnown) ? model : 'other';
}

/** A call that failed: the status the caller is answered, no channel. */
export function observeFailed(ctx: AppContext, route: string, model: string, error: unknown, startedAt: number, isPriced?: boolean): void {
  const status = error instanceof RelayError ? clientStatus(error) : 500;
  ctx.metrics.observe({ route, model: modelLabel(ctx, model, isPriced), channelId: null, status, durationMs: Date.now() - startedAt });
}
