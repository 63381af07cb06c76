import { RelayError } from '../../errors.js';
import type { UpstreamRequest, UpstreamTarget } from '../types.js';
import { isHunyuanRegion, parseHunyuanKey } from './key.js';
import { signTc3 } from './tc3.js';

export const hunyuanVersion = '2023-09-01';
export const hunyuanService = 'hunyuan';
const contentType = 'application/json';

/** `{base}/`: every action is a POST to the root, chosen by the X-TC-Action header. */
export const hunyuanUrl = (target: UpstreamTarget): string => `${target.baseURL.trim().replace(/\/+$/, '')}/`;

/**
 * A signed API 3.0 call: the body is serialized once and sent as that exact text (the signature
 * covers its hash). The canonical host is the URL's host, which the HTTP client sends as Host, so
 * a proxy or local base URL signs what it receives. `nowMs` is the clock (tests inject it).
 */
export function buildSignedHunyuanRequest(
  target: UpstreamTarget,
  action: string,
  payload: Record<string, unknown>,
  nowMs = Date.now(),
): UpstreamRequest {
  const credentials = parseHunyuanKey(target.key);
  if (!credentials) throw new RelayError(500, 'invalid_channel_key', '腾讯混元渠道密钥格式应为 AppId|SecretId|SecretKey');
  const url = hunyuanUrl(target);
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(nowMs / 1000);
  const { authorization } = signTc3({
    secretId: credentials.secretId,
    secretKey: credentials.secretKey,
    service: hunyuanService,
    host: new URL(url).host,
    action,
    timestamp,
    body,
    contentType,
  });
  const headers: Record<string, string> = {
    ...target.headers,
    'content-type': contentType,
    'x-tc-action': action,
    'x-tc-version': hunyuanVersion,
    'x-tc-timestamp': String(timestamp),
    authorization,
  };
  // Saving refuses anything but a region name; one imported or edited in the database is left out.
  if (isHunyuanRegion(target.other.trim())) headers['x-tc-region'] = target.other.trim();
  return { url, headers, body };
}
