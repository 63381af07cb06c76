import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** Every environment variable ModelGate reads, parsed and typed in one place. */
export type DatabaseKind = 'sqlite' | 'postgres' | 'mysql';

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
  maxRequestBodyBytes: number;
  /** Bytes that request bodies being read may hold in memory at once, over all requests (MAX_BODY_MEMORY_MB). */
  bodyMemoryBytes: number;
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
  logLevel: string;
  webDistDir: string;
  trustProxy: boolean;
  /** Settings that work but should be changed, logged once at start-up. */
  warnings: string[];
  version: string;
  /** Base URLs of third-party sign-in providers; overridable so tests can run local servers. */
  oauthEndpoints: { githubOAuth: string; githubApi: string; linuxDo: string };
  /** Cloudflare Turnstile's siteverify endpoint (a local server in tests). */
  turnstileVerifyUrl: string;
  /** A PEM file of extra CAs trusted by the SMTP client and the notification webhooks (a private relay, or tests). */
  extraCaFile: string;
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

export function loadConfig(env: Env = process.env): Config {
  const { kind, dsn } = parseSqlDsn(env.SQL_DSN ?? '');
  const sessionSecret = env.SESSION_SECRET?.trim() || '';
  const generated = sessionSecret === '';
  const secret = generated ? randomBytes(32).toString('hex') : sessionSecret;
  const warnings = [
    ...(generated ? ['SESSION_SECRET is not set: a random one is used, so sessions end at restart and cannot be shared between instances'] : []),
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
    maxRequestBodyBytes: intFrom(env, 'MAX_REQUEST_BODY_MB', 32, 1) * 1024 * 1024,
    bodyMemoryBytes: intFrom(env, 'MAX_BODY_MEMORY_MB', 512, 1) * 1024 * 1024,
    maxJsonDepth: intFrom(env, 'MAX_JSON_DEPTH', 64, 8),
    ...requestTimeoutsFrom(env),
    streamIdleTimeoutSeconds: intFrom(env, 'STREAMING_TIMEOUT', 120, 1),
    shutdownTimeoutSeconds: intFrom(env, 'SHUTDOWN_TIMEOUT', 30, 0),
    taskPollIntervalSeconds: intFrom(env, 'TASK_POLL_INTERVAL', 15, 0),
    taskTimeoutSeconds: intFrom(env, 'TASK_TIMEOUT', 3600, 60),
    relayTimeoutSeconds: intFrom(env, 'RELAY_TIMEOUT', 0, 0),
    batchUpdateIntervalMs: intFrom(env, 'BATCH_UPDATE_INTERVAL_MS', 1000, 10),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    webDistDir: path.resolve(env.WEB_DIST_DIR?.trim() || path.join(import.meta.dirname, '../../web/dist')),
    trustProxy: (env.TRUST_PROXY ?? 'false').toLowerCase() === 'true',
    warnings,
    version: env.MODELGATE_VERSION?.trim() || '0.1.0',
    oauthEndpoints: {
      githubOAuth: baseUrlFrom(env, 'GITHUB_OAUTH_BASE_URL', 'https://github.com'),
      githubApi: baseUrlFrom(env, 'GITHUB_API_BASE_URL', 'https://api.github.com'),
      linuxDo: baseUrlFrom(env, 'LINUX_DO_BASE_URL', 'https://connect.linux.do'),
    },
    turnstileVerifyUrl: baseUrlFrom(env, 'TURNSTILE_VERIFY_URL', 'https://challenges.cloudflare.com/turnstile/v0/siteverify'),
    extraCaFile: env.EXTRA_CA_FILE?.trim() ?? '',
  };
}
