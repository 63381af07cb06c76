import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import path from 'node:path';
import proxyAddr from '@fastify/proxy-addr';
import { tracingConfigFrom, type TracingConfig } from './tracing/tracing-config.js';

/** Every environment variable ModelGate reads, parsed and typed in one place. */
export type DatabaseKind = 'sqlite' | 'postgres' | 'mysql';

/**
 * Whether the peer at `address` is a proxy whose X-Forwarded-* headers are believed. `hop` 0 is the
 * socket peer, 1 the rightmost X-Forwarded-For entry, and so on leftwards (proxy-addr's trust function).
 */
export type ProxyTrust = (address: string, hop: number) => boolean;

export interface Config {
  port: number;
  host: string;
  database: { kind: DatabaseKind; dsn: string; sqlitePath: string };
  redisUrl: string | null;
  /** Prefix of every Redis key and channel; instances sharing state must share it. */
  redisKeyPrefix: string;
  sessionSecret: string;
  isSessionSecretGenerated: boolean;
  cryptoSecret: string;
  syncFrequencySeconds: number;
  isMaster: boolean;
  globalApiRateLimit: { max: number; durationSeconds: number };
  criticalRateLimit: { max: number; durationSeconds: number };
  /** Second-factor code attempts (TOTP and recovery codes) per account and per IP in one window. */
  twoFactorRateLimit: { accountMax: number; ipMax: number; durationSeconds: number };
  maxRequestBodyBytes: number;
  /** Bytes that request bodies being read may hold in memory at once, over all requests (MAX_BODY_MEMORY_MB). */
  bodyMemoryBytes: number;
  /** Bytes that whole upstream answers being read may hold in memory at once, over all calls (MAX_ANSWER_MEMORY_MB). */
  answerMemoryBytes: number;
  /** Deepest nesting of objects and arrays a JSON body may have (MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Seconds a client may take to send a request's headers (REQUEST_HEADERS_TIMEOUT). */
  requestHeadersTimeoutSeconds: number;
  /** Seconds a client may take to send a whole request, headers and body (REQUEST_BODY_TIMEOUT; 0 = no limit). */
  requestBodyTimeoutSeconds: number;
  streamIdleTimeoutSeconds: number;
  /** Seconds shutdown lets requests and streams in flight finish before it cuts them (SHUTDOWN_TIMEOUT). */
  shutdownTimeoutSeconds: number;
  /** Seconds between polls of unfinished tasks (TASK_POLL_INTERVAL; 0 = this instance does not poll). */
  taskPollIntervalSeconds: number;
  /** Seconds after which an unfinished task fails and is refunded (TASK_TIMEOUT). */
  taskTimeoutSeconds: number;
  relayTimeoutSeconds: number;
  batchUpdateIntervalMs: number;
  /**
   * Minutes between periodic channel tests (CHANNEL_TEST_FREQUENCY); overrides the monitoring
   * options when set; null = the options decide. Decimals allowed (tests use seconds).
   */
  channelTestFrequencyMinutes: number | null;
  /** Minutes between periodic balance refreshes (CHANNEL_UPDATE_FREQUENCY); null = off. */
  channelUpdateFrequencyMinutes: number | null;
  logLevel: string;
  webDistDir: string;
  /**
   * The proxies in front (TRUST_PROXY); null = none, the socket peer is the client. Fastify and the
   * relay's direct lane both take the client address, protocol and host through this one function.
   */
  trustProxy: ProxyTrust | null;
  /** Settings that work but should be changed, logged once at start-up. */
  warnings: string[];
  version: string;
  /** Base URLs of third-party sign-in providers; overridable so tests can run local servers. */
  oauthEndpoints: { githubOAuth: string; githubApi: string; linuxDo: string };
  /** Cloudflare Turnstile's siteverify endpoint (a local server in tests). */
  turnstileVerifyUrl: string;
  /** Stripe's API base URL (STRIPE_API_BASE_URL): its host, port and protocol go to the Stripe client; a local server in tests. */
  stripeApiBaseUrl: string;
  /** Seconds the console's OIDC "fetch configuration" may take, connection and document (OIDC_DISCOVERY_TIMEOUT). */
  oidcDiscoveryTimeoutSeconds: number;
  /** A PEM file of extra CAs trusted by the SMTP client and the notification webhooks (a private relay, or tests). */
  extraCaFile: string;
  /** OpenTelemetry traces of relayed calls (the OTEL_* variables, tracing/tracing-config.ts); null = off. */
  tracing: TracingConfig | null;
  /** Where the API suite's contract check writes what it saw (MODELGATE_RESPONSE_CHECK_DIR; null = off, always in production). */
  responseCheckDir: string | null;
}

type Env = Record<string, string | undefined>;

function intFrom(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) {
    throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  }
  return Math.floor(value);
}

/** A period in minutes, decimals allowed; unset, empty or 0 is null (off). */
function minutesFrom(env: Env, name: string): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of minutes >= 0, got "${raw}"`);
  return value === 0 ? null : value;
}

/** An http(s) base URL without a trailing slash. */
function baseUrlFrom(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^https?:\/\/[^\s/]+/i.test(raw)) throw new Error(`${name} must be an http:// or https:// URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/**
 * Turns SQL_DSN into a driver URL. Accepts postgres:// and postgresql:// URLs, mysql:// URLs and the
 * Go-style `user:pass@tcp(host:port)/db?params` form used by the one-api/new-api family.
 */
export function parseSqlDsn(dsn: string): { kind: DatabaseKind; dsn: string } {
  const trimmed = dsn.trim();
  if (trimmed === '') return { kind: 'sqlite', dsn: '' };
  if (/^postgres(ql)?:\/\//i.test(trimmed)) return { kind: 'postgres', dsn: trimmed };
  if (/^mysql:\/\//i.test(trimmed)) return { kind: 'mysql', dsn: trimmed };
  const goStyle = /^(?:([^:@]*)(?::([^@]*))?@)?tcp\(([^)]+)\)\/([^?]*)(?:\?(.*))?$/.exec(trimmed);
  if (goStyle) {
    const [, user = '', pass = '', hostPort = '', db = '', query = ''] = goStyle;
    const auth = user ? `${encodeURIComponent(user)}${pass ? `:${encodeURIComponent(pass)}` : ''}@` : '';
    // Go driver parameters (parseTime, charset, loc) mean nothing to mysql2; keep none of them.
    void query;
    return { kind: 'mysql', dsn: `mysql://${auth}${hostPort}/${db}` };
  }
  throw new Error('SQL_DSN must be a postgres://, mysql:// or user:pass@tcp(host:port)/db DSN');
}

/** The client-side request timeouts; the headers must fit in the time of the whole request. */
function requestTimeoutsFrom(env: Env): Pick<Config, 'requestHeadersTimeoutSeconds' | 'requestBodyTimeoutSeconds'> {
  const headers = intFrom(env, 'REQUEST_HEADERS_TIMEOUT', 60, 1);
  const body = intFrom(env, 'REQUEST_BODY_TIMEOUT', 300, 0);
  if (body > 0 && headers > body) throw new Error(`REQUEST_HEADERS_TIMEOUT (${headers}) must not exceed REQUEST_BODY_TIMEOUT (${body})`);
  return { requestHeadersTimeoutSeconds: headers, requestBodyTimeoutSeconds: body };
}

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal']);
const trustProxyForms =
  'TRUST_PROXY must be false, a number of proxy hops, or a comma-separated list of proxy addresses, CIDRs or the names loopback, linklocal, uniquelocal';

/**
 * One TRUST_PROXY entry: a name proxy-addr knows, or an IPv4/IPv6 address in its usual notation with an
 * optional /prefix or /netmask (proxy-addr checks those; it would also take forms such as `127.1`).
 */
function isProxyEntry(entry: string): boolean {
  if (proxyNames.has(entry)) return true;
  const slash = entry.lastIndexOf('/');
  return isIP(slash < 0 ? entry : entry.slice(0, slash)) !== 0;
}

/** n proxies in a row: the socket peer and the n - 1 rightmost X-Forwarded-For entries. */
const trustHops =
  (hops: number): ProxyTrust =>
  (_address, hop) =>
    hop < hops;

/**
 * TRUST_PROXY, read as Fastify's `trustProxy`: empty or `false` (no proxy), a number of proxy hops n
 * (the client is the n-th X-Forwarded-For entry from the right), or a comma-separated list of the
 * proxies' addresses and CIDRs (the client is the first address, from the socket peer leftwards
 * through X-Forwarded-For, that is not on the list). `true` is read as one hop, with a warning: it
 * used to trust every entry, so the client could name its own address in the leftmost one.
 */
export function parseTrustProxy(raw: string | undefined): { trust: ProxyTrust | null; warning: string | null } {
  const value = raw?.trim() ?? '';
  if (value === '' || value.toLowerCase() === 'false') return { trust: null, warning: null };
  if (value.toLowerCase() === 'true') {
    return {
      trust: trustHops(1),
      warning: 'TRUST_PROXY=true is read as one proxy hop (TRUST_PROXY=1); set the number of proxies in front or their addresses instead',
    };
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (!Number.isSafeInteger(hops)) throw new Error(`${trustProxyForms}, got "${value}"`);
    return { trust: hops === 0 ? null : trustHops(hops), warning: null };
  }
  const entries = value.split(',').map((entry) => entry.trim());
  const invalid = entries.find((entry) => !isProxyEntry(entry));
  if (invalid !== undefined) throw new Error(`${trustProxyForms}, got "${value}" ("${invalid}" is none of these)`);
  try {
    return { trust: proxyAddr.compile(entries), warning: null };
  } catch (error) {
    throw new Error(`${trustProxyForms}, got "${value}" (${(error as Error).message})`);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const { kind, dsn } = parseSqlDsn(env.SQL_DSN ?? '');
  const sessionSecret = env.SESSION_SECRET?.trim() || '';
  const generated = sessionSecret === '';
  const secret = generated ? randomBytes(32).toString('hex') : sessionSecret;
  const proxies = parseTrustProxy(env.TRUST_PROXY);
  const warnings = [
    ...(generated
      ? ['SESSION_SECRET is not set: a random one is used, so sessions end at restart and cannot be shared between instances']
      : []),
    ...(proxies.warning ? [proxies.warning] : []),
  ];
  return {
    port: intFrom(env, 'PORT', 3000, 0),
    host: env.HOST?.trim() || '0.0.0.0',
    database: {
      kind,
      dsn,
      sqlitePath: path.resolve(env.SQLITE_PATH?.trim() || './data/modelgate.db'),
    },
    redisUrl: env.REDIS_CONN_STRING?.trim() || null,
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'mg:',
    sessionSecret: secret,
    isSessionSecretGenerated: generated,
    cryptoSecret: env.CRYPTO_SECRET?.trim() || secret,
    syncFrequencySeconds: intFrom(env, 'SYNC_FREQUENCY', 60, 1),
    isMaster: (env.NODE_TYPE?.trim().toLowerCase() || 'master') !== 'slave',
    globalApiRateLimit: {
      max: intFrom(env, 'GLOBAL_API_RATE_LIMIT', 180, 0),
      durationSeconds: intFrom(env, 'GLOBAL_API_RATE_LIMIT_DURATION', 180, 1),
    },
    criticalRateLimit: {
      max: intFrom(env, 'CRITICAL_RATE_LIMIT', 20, 0),
      durationSeconds: intFrom(env, 'CRITICAL_RATE_LIMIT_DURATION', 1200, 1),
    },
    twoFactorRateLimit: {
      accountMax: intFrom(env, 'TWO_FACTOR_RATE_LIMIT', 5, 1),
      ipMax: intFrom(env, 'TWO_FACTOR_IP_RATE_LIMIT', 20, 1),
      durationSeconds: intFrom(env, 'TWO_FACTOR_RATE_LIMIT_DURATION', 300, 1),
    },
    maxRequestBodyBytes: intFrom(env, 'MAX_REQUEST_BODY_MB', 32, 1) * 1024 * 1024,
    bodyMemoryBytes: intFrom(env, 'MAX_BODY_MEMORY_MB', 512, 1) * 1024 * 1024,
    answerMemoryBytes: intFrom(env, 'MAX_ANSWER_MEMORY_MB', 1024, 1) * 1024 * 1024,
    maxJsonDepth: intFrom(env, 'MAX_JSON_DEPTH', 64, 8),
    ...requestTimeoutsFrom(env),
    streamIdleTimeoutSeconds: intFrom(env, 'STREAMING_TIMEOUT', 120, 1),
    shutdownTimeoutSeconds: intFrom(env, 'SHUTDOWN_TIMEOUT', 30, 0),
    taskPollIntervalSeconds: intFrom(env, 'TASK_POLL_INTERVAL', 15, 0),
    taskTimeoutSeconds: intFrom(env, 'TASK_TIMEOUT', 3600, 60),
    relayTimeoutSeconds: intFrom(env, 'RELAY_TIMEOUT', 0, 0),
    batchUpdateIntervalMs: intFrom(env, 'BATCH_UPDATE_INTERVAL_MS', 1000, 10),
    channelTestFrequencyMinutes: minutesFrom(env, 'CHANNEL_TEST_FREQUENCY'),
    channelUpdateFrequencyMinutes: minutesFrom(env, 'CHANNEL_UPDATE_FREQUENCY'),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    webDistDir: path.resolve(env.WEB_DIST_DIR?.trim() || path.join(import.meta.dirname, '../../web/dist')),
    trustProxy: proxies.trust,
    warnings,
    version: env.MODELGATE_VERSION?.trim() || '0.1.0',
    oauthEndpoints: {
      githubOAuth: baseUrlFrom(env, 'GITHUB_OAUTH_BASE_URL', 'https://github.com'),
      githubApi: baseUrlFrom(env, 'GITHUB_API_BASE_URL', 'https://api.github.com'),
      linuxDo: baseUrlFrom(env, 'LINUX_DO_BASE_URL', 'https://connect.linux.do'),
    },
    turnstileVerifyUrl: baseUrlFrom(env, 'TURNSTILE_VERIFY_URL', 'https://challenges.cloudflare.com/turnstile/v0/siteverify'),
    stripeApiBaseUrl: baseUrlFrom(env, 'STRIPE_API_BASE_URL', 'https://api.stripe.com'),
    oidcDiscoveryTimeoutSeconds: intFrom(env, 'OIDC_DISCOVERY_TIMEOUT', 10, 1),
    extraCaFile: env.EXTRA_CA_FILE?.trim() ?? '',
    tracing: tracingConfigFrom(env),
    responseCheckDir: env.MODELGATE_RESPONSE_CHECK_DIR?.trim() ? path.resolve(env.MODELGATE_RESPONSE_CHECK_DIR.trim()) : null,
  };
}
