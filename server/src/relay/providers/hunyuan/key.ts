/** A Hunyuan channel key: `AppId|SecretId|SecretKey`, or `SecretId|SecretKey` (API 3.0 needs no AppId). */
export interface HunyuanCredentials {
  appId: string;
  secretId: string;
  secretKey: string;
}

export function parseHunyuanKey(key: string): HunyuanCredentials | null {
  const parts = key.trim().split('|').map((part) => part.trim());
  if (parts.length === 2) parts.unshift('');
  if (parts.length !== 3) return null;
  const [appId, secretId, secretKey] = parts as [string, string, string];
  if (!secretId || !secretKey) return null;
  return { appId, secretId, secretKey };
}

export function validateHunyuanKey(key: string): string | null {
  return parseHunyuanKey(key) ? null : '腾讯混元的密钥格式为 AppId|SecretId|SecretKey（AppId 可省略：SecretId|SecretKey）';
}
