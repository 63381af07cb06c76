/** The WebSocket path and the `domain` a Spark version is served by. */
export interface SparkEndpoint {
  version: string;
  path: string;
  domain: string;
}

export const defaultSparkVersion = 'v2.1';

const domains: Record<string, string> = {
  'v1.1': 'lite',
  'v2.1': 'generalv2',
  'v3.1': 'generalv3',
  'v3.5': 'generalv3.5',
  'v4.0': '4.0Ultra',
};
/** Versions served under `/chat/{name}` rather than `/{version}/chat`. */
const namedChats = new Set(['pro-128k', 'max-32k']);

const versionPattern = /^(v\d+(\.\d+)?|pro-128k|max-32k)$/i;

/** The version a model name ends with (`SparkDesk-v3.5` → `v3.5`, `spark-pro-128k` → `pro-128k`), if any. */
export function versionOfModel(model: string): string | null {
  const match = /-(v\d+(?:\.\d+)?|pro-128k|max-32k)$/i.exec(model.trim());
  return match ? match[1]!.toLowerCase() : null;
}

/**
 * The version of one call: the client's `?api-version=`, then the model's suffix, then the
 * channel's `other`, else v2.1 (what the console fills in). Unknown values are ignored in turn.
 */
export function chooseSparkVersion(clientVersion: string | undefined, model: string, channelOther: string): string {
  for (const candidate of [clientVersion, versionOfModel(model), channelOther]) {
    const value = candidate?.trim().toLowerCase();
    if (value && versionPattern.test(value)) return value;
  }
  return defaultSparkVersion;
}

export function sparkEndpointOf(version: string): SparkEndpoint {
  if (namedChats.has(version)) return { version, path: `/chat/${version}`, domain: version };
  return { version, path: `/${version}/chat`, domain: domains[version] ?? `general${version}` };
}

/** Domains from v3.5 on take a real system message; older ones get it as a user turn plus "Okay". */
export function acceptsSystemRole(endpoint: SparkEndpoint): boolean {
  if (namedChats.has(endpoint.version)) return true;
  const number = Number(endpoint.version.slice(1));
  return Number.isFinite(number) && number >= 3.5;
}
