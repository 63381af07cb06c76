/** The channel key of type 33: `AK|SK|Region` (SigV4) or `APIKey|Region` (Bedrock API key, Bearer). */
export type BedrockCredentials =
  | { kind: 'sigv4'; accessKeyId: string; secretAccessKey: string; region: string; sessionToken?: string }
  | { kind: 'apikey'; apiKey: string; region: string };

const defaultRegion = 'us-east-1';

/** Parses the key; the region falls back to the channel's `other` field, then us-east-1. */
export function parseBedrockKey(key: string, other = ''): BedrockCredentials {
  const parts = key.split('|').map((part) => part.trim());
  const fallback = other.trim() || defaultRegion;
  if (parts.length >= 3) {
    const [accessKeyId = '', secretAccessKey = '', region = '', sessionToken] = parts;
    return { kind: 'sigv4', accessKeyId, secretAccessKey, region: region || fallback, ...(sessionToken ? { sessionToken } : {}) };
  }
  const [apiKey = '', region = ''] = parts;
  return { kind: 'apikey', apiKey, region: region || fallback };
}

const regionPattern = /^[a-z]{2}(-gov)?-[a-z]+-\d$/;

/** Channel form check: `AK|SK|Region` (optionally `|SessionToken`) or `APIKey|Region`, every part filled. */
export function validateBedrockKey(key: string): string | null {
  const parts = key.split('|').map((part) => part.trim());
  const isSigV4 = (parts.length === 3 || parts.length === 4) && parts.slice(0, 3).every(Boolean);
  const isApiKey = parts.length === 2 && parts.every(Boolean);
  if (!isSigV4 && !isApiKey) return 'AWS Bedrock 密钥格式应为 AccessKey|SecretKey|Region 或 APIKey|Region';
  const region = isSigV4 ? parts[2]! : parts[1]!;
  if (!regionPattern.test(region)) return `AWS Bedrock 区域无效：${region}（例如 us-east-1）`;
  return null;
}
