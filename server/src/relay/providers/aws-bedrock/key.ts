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
