import type { UpstreamTarget } from '../types.js';
import { getUpstreamJson } from '../upstream-request.js';

const getJson = (url: string, target: UpstreamTarget) => getUpstreamJson(url, { authorization: `Bearer ${target.key}` }, target);

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** A balance answer whose fields are missing or not amounts: a changed or hostile answer, never read as 0. */
export const unreadableBalance = '上游返回的余额格式无法识别';

/** The yuan per US dollar at which CNY balances (Moonshot, DeepSeek without a USD entry) are shown. */
export const cnyPerUsd = 7.3;

/** A finite number, or a decimal number as a string (SiliconFlow and DeepSeek send strings); anything else throws. */
export function balanceAmount(value: unknown): number {
  const amount =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*-?\d{1,30}(\.\d{1,30})?\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isFinite(amount)) throw new Error(unreadableBalance);
  return amount;
}

/** A JSON object member of a balance answer (`data`, an entry of a list); anything else throws. */
export function balanceObject(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(unreadableBalance);
  return value as Record<string, unknown>;
}

/** A computed balance rounded to six decimals, or the unreadable-balance error when it is not finite. */
function finiteBalance(value: number): number {
  const rounded = Math.round(value * 1e6) / 1e6;
  if (!Number.isFinite(rounded)) throw new Error(unreadableBalance);
  return rounded;
}
const dateOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * OpenAI-style balance: hard_limit_usd − total_usage/100 from
 * /v1/dashboard/billing/subscription and /usage (the last 100 days).
 */
export async function fetchDashboardBalance(target: UpstreamTarget): Promise<number> {
  const base = trimSlash(target.baseURL).replace(/\/v1$/, '');
  const subscription = await getJson(`${base}/v1/dashboard/billing/subscription`, target);
  const now = Date.now();
  const start = dateOf(now - 100 * 24 * 3600 * 1000);
  const end = dateOf(now + 24 * 3600 * 1000);
  const usage = await getJson(`${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${end}`, target);
  return finiteBalance(balanceAmount(subscription.hard_limit_usd) - balanceAmount(usage.total_usage) / 100);
}

/**
 * A balance read from one JSON endpoint under the channel's base URL (the provider's default host
 * unless the channel overrides it) with a field picker (SiliconFlow, DeepSeek, OpenRouter, Moonshot).
 * The picker reads its fields with balanceObject and balanceAmount, so an answer without them fails
 * (the channel keeps its stored balance and is not disabled) instead of reading as a balance of 0.
 */
export function jsonBalance(path: string, pick: (json: Record<string, unknown>) => number) {
  return async (target: UpstreamTarget): Promise<number> => {
    const base = trimSlash(target.baseURL);
    const url = base.endsWith('/v1') && path.startsWith('/v1/') ? `${base}${path.slice(3)}` : `${base}${path}`;
    return finiteBalance(pick(await getJson(url, target)));
  };
}
