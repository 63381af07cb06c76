/** An iFlytek Spark key: `APPID|APISecret|APIKey` (the console's order). */
export interface SparkKey {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

export function parseSparkKey(key: string): SparkKey | null {
  const parts = key
    .trim()
    .split('|')
    .map((part) => part.trim());
  if (parts.length !== 3 || parts.some((part) => !part)) return null;
  return { appId: parts[0]!, apiSecret: parts[1]!, apiKey: parts[2]! };
}

export function validateSparkKey(key: string): string | null {
  for (const line of key
    .split('\n')
    .map((value) => value.trim())
    .filter(Boolean)) {
    if (!parseSparkKey(line)) return '讯飞星火的密钥格式应为 APPID|APISecret|APIKey';
  }
  return key.trim() ? null : '请填写讯飞星火的密钥（APPID|APISecret|APIKey）';
}
