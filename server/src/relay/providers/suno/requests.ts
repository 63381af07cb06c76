import type { UpstreamRequest, UpstreamTarget } from '../types.js';

const trimSlash = (url: string) => url.trim().replace(/\/+$/, '');
const headersOf = (target: UpstreamTarget) => ({ authorization: `Bearer ${target.key}`, ...target.headers });

/** `POST {base}/suno/submit/{MUSIC|LYRICS}` with the client's (validated) body. */
export function sunoSubmitRequest(target: UpstreamTarget, action: 'MUSIC' | 'LYRICS', body: Record<string, unknown>): UpstreamRequest {
  return { url: `${trimSlash(target.baseURL)}/suno/submit/${action}`, headers: headersOf(target), body };
}

/** `POST {base}/suno/fetch {ids}`: the upstream tasks' states. */
export function sunoFetchRequest(target: UpstreamTarget, upstreamIds: string[]): UpstreamRequest {
  return { url: `${trimSlash(target.baseURL)}/suno/fetch`, headers: headersOf(target), body: { ids: upstreamIds } };
}
