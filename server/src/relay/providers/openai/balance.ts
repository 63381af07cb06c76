import type { UpstreamTarget } from '../types.js';
import { getUpstreamJson } from '../upstream-request.js';

const getJson = (url: string, target: UpstreamTarget) => getUpstreamJson(url, { authorization: `Bearer ${target.key}` }, target);

const trimSlash = (url: string) => url.replace(/\/+$/, '');
const dateOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * OpenAI-style balance (providers.md §6): hard_limit_usd − total_usage/100 from
 * /v1/dashboard/billing/subscription and /usage (the last 100 days).
 */
export async function fetchDashboardBalance(target: UpstreamTarget): Promise<number> {
  const base = trimSlash(target.baseURL).replace(/\/v1$/, '');
  const subscription = await getJson(`${base}/v1/dashboard/billing/subscription`, target);
  const now = Date.now();
  const start = dateOf(now - 100 * 24 * 3600 * 1000);
  const end = dateOf(now + 24 * 3600 * 1000);
  const usage = await getJson(`${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${end}`, target);
  const hardLimit = Number(subscription.hard_limit_usd ?? 0);
  const totalUsage = Number(usage.total_usage ?? 0);
  return Math.round((hardLimit - totalUsage / 100) * 1e6) / 1e6;
}

/**
 * A balance read from one JSON endpoint under the channel's base URL (the provider's default host
 * unless the channel overrides it) with a field picker (SiliconFlow, DeepSeek, OpenRouter, Moonshot).
 */
export function jsonBalance(path: string, pick: (json: Record<string, unknown>) => number) {
  return async (target: UpstreamTarget): Promise<number> => {
    const base = trimSlash(target.baseURL);
    const url = base.endsWith('/v1') && path.startsWith('/v1/') ? `${base}${path.slice(3)}` : `${base}${path}`;
    return pick(await getJson(url, target));
  };
}
