import type { UpstreamRequest, UpstreamTarget } from '../types.js';

const trimSlash = (url: string) => url.trim().replace(/\/+$/, '');
/** Midjourney-Proxy reads the key from `mj-api-secret`. */
const headersOf = (target: UpstreamTarget) => ({ 'mj-api-secret': target.key, ...target.headers });

/** `POST {base}/mj/{path}` (submit/imagine, submit/action, insight-face/swap, ...) with the client's (checked) body. */
export function mjSubmitRequest(target: UpstreamTarget, path: string, body: Record<string, unknown>): UpstreamRequest {
  return { url: `${trimSlash(target.baseURL)}/mj/${path}`, headers: headersOf(target), body };
}

/** `POST {base}/mj/task/list-by-condition {ids}`: the upstream tasks' states. */
export function mjListRequest(target: UpstreamTarget, upstreamIds: string[]): UpstreamRequest {
  return { url: `${trimSlash(target.baseURL)}/mj/task/list-by-condition`, headers: headersOf(target), body: { ids: upstreamIds } };
}

/** `GET {base}/mj/task/{id}/image-seed` (Proxy Plus). */
export function mjImageSeedRequest(target: UpstreamTarget, upstreamId: string): UpstreamRequest {
  return {
    url: `${trimSlash(target.baseURL)}/mj/task/${encodeURIComponent(upstreamId)}/image-seed`,
    headers: headersOf(target),
    body: '',
    method: 'GET',
  };
}
