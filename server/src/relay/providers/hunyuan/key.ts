/** A Hunyuan channel key: `AppId|SecretId|SecretKey`, or `SecretId|SecretKey` (API 3.0 needs no AppId). */
export interface HunyuanCredentials {
  appId: string;
  secretId: string;
  secretKey: string;
}

export function parseHunyuanKey(key: string): HunyuanCredentials | null {
  const parts = key
    .trim()
    .split('|')
    .map((part) => part.trim());
  if (parts.length === 2) parts.unshift('');
  if (parts.length !== 3) return null;
  const [appId, secretId, secretKey] = parts as [string, string, string];
  if (!secretId || !secretKey) return null;
  return { appId, secretId, secretKey };
}

export function validateHunyuanKey(key: string): string | null {
  return parseHunyuanKey(key) ? null : '腾讯混元的密钥格式为 AppId|SecretId|SecretKey（AppId 可省略：SecretId|SecretKey）';
}

/** A Tencent Cloud region (ap-guangzhou, na-siliconvalley): what `other` may hold, sent as X-TC-Region. */
export const isHunyuanRegion = (region: string): boolean => /^[a-z]+(?:-[a-z0-9]+)+$/.test(region);

/** The channel's key, and its optional region: anything else in the header would fail every call. */
export function validateHunyuanChannel(key: string, other: string): string | null {
  const region = other.trim();
  if (region !== '' && !isHunyuanRegion(region)) return '腾讯混元的地域应为 ap-guangzhou 这样的地域名，或留空';
  return validateHunyuanKey(key);
}
