/**
 * The OpenTelemetry trace settings, read from the standard `OTEL_*` variables by config.ts's
 * loadConfig (the one place the environment is read). Tracing is off unless an OTLP endpoint is set;
 * a malformed value stops start-up with a message naming the variable, never a failure later.
 */

type Env = Record<string, string | undefined>;

export type TraceSampler =
  | { kind: 'always_on' }
  | { kind: 'always_off' }
  | { kind: 'traceidratio'; ratio: number }
  | { kind: 'parentbased'; root: 'always_on' | 'always_off' | 'traceidratio'; ratio: number };

export interface TracingConfig {
  /** Where spans are POSTed (OTLP/HTTP JSON), the full `/v1/traces` URL. */
  url: string;
  /** Extra headers of each export (a collector's API key): never logged. */
  headers: Record<string, string>;
  serviceName: string;
  sampler: TraceSampler;
  /**
   * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: prompts and completion text in the request
   * spans (docs/observability.md). Off by default: they may hold anything a user typed.
   */
  captureMessageContent: boolean;
}

const samplerNames = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

function endpointFrom(env: Env): string | null {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const name = signal ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const raw = signal || base;
  if (!raw) return null;
  // The message echoes the value without any user name and password written into it.
  const shown = raw.replace(/\/\/[^/@]*@/, '//***@');
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http:// or https:// URL, got "${shown}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`${name} must be an http:// or https:// URL, got "${shown}"`);
  // The signal's own variable is the whole URL; the shared one is a base the signal path is added to (the OTLP spec).
  return signal ? parsed.href : `${parsed.href.replace(/\/+$/, '')}/v1/traces`;
}

/** `key=value,key2=value2`, values percent-encoded (the OTLP exporter spec). */
export function parseOtlpHeaders(raw: string | undefined, name: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!raw?.trim()) return headers;
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const equals = pair.indexOf('=');
    const key = equals > 0 ? pair.slice(0, equals).trim() : '';
    // The value may hold a secret: the message names the variable and the key, never the value.
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) throw new Error(`${name} must be a comma-separated list of key=value pairs`);
    try {
      headers[key.toLowerCase()] = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      throw new Error(`${name} has a value for "${key}" that is not valid percent-encoding`);
    }
  }
  return headers;
}

function samplerFrom(env: Env): TraceSampler {
  const name = (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on') as (typeof samplerNames)[number];
  if (!samplerNames.includes(name))
    throw new Error(`OTEL_TRACES_SAMPLER must be one of ${samplerNames.join(', ')}, got "${env.OTEL_TRACES_SAMPLER}"`);
  const rawArg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = rawArg ? Number(rawArg) : 1;
  if (name.endsWith('traceidratio') && !(Number.isFinite(ratio) && ratio >= 0 && ratio <= 1)) {
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio between 0 and 1, got "${rawArg}"`);
  }
  if (name === 'always_on' || name === 'always_off') return { kind: name };
  if (name === 'traceidratio') return { kind: name, ratio };
  return { kind: 'parentbased', root: name.slice('parentbased_'.length) as 'always_on' | 'always_off' | 'traceidratio', ratio };
}

/** A boolean OTEL_* variable: unset or empty is `fallback`; `true`/`false` in any case; anything else stops start-up. */
function flagFrom(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw !== 'true' && raw !== 'false') throw new Error(`${name} must be true or false, got "${env[name]}"`);
  return raw === 'true';
}

/** The trace settings, or null when tracing is off (no endpoint, or OTEL_SDK_DISABLED=true). */
export function tracingConfigFrom(env: Env): TracingConfig | null {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return null;
  const url = endpointFrom(env);
  if (url === null) return null;
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[protocolName]?.trim().toLowerCase();
  // The exporter package installed (exporter-trace-otlp-http) speaks JSON; a collector's OTLP/HTTP port takes both.
  if (protocol && protocol !== 'http/json')
    throw new Error(`${protocolName} must be http/json (the only OTLP protocol ModelGate exports), got "${protocol}"`);
  return {
    url,
    headers: {
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'modelgate',
    sampler: samplerFrom(env),
    captureMessageContent: flagFrom(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', false),
  };
}
