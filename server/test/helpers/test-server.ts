import type { AppContext } from '../../src/context.js';
import type { RelayState } from '../../src/relay/state.js';
import type { DatabaseKind } from '../../src/config.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';
import { ApiClient } from './api-client.js';
import { createTestDatabase, type TestDatabase } from './test-storage.js';

export interface TestServer extends RunningServer {
  database: TestDatabase;
  /** A new client with its own cookie jar. */
  client(): ApiClient;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  kind?: DatabaseKind;
  /** Extra environment, e.g. REDIS_CONN_STRING or rate limits. */
  env?: Record<string, string>;
  /** Reuse a database (several instances on one database). */
  database?: TestDatabase;
  /** Told about every route as it is registered (StartOptions.onRoute). */
  onRoute?: StartOptions['onRoute'];
  /** Receives the server log (set LOG_LEVEL in env to choose what is written). */
  loggerStream?: StartOptions['loggerStream'];
}

const relays = new WeakMap<AppContext, RelayState>();

/** Lets the ctx-based helpers (relay-fixtures) find a running server's relay; startTestServer does it for its own. */
export function trackRelay(server: { ctx: AppContext; relay: RelayState }): void {
  relays.set(server.ctx, server.relay);
}

/** The relay state of a test server, found by its context (helpers that take a ctx; the app itself never does this). */
export function relayOf(ctx: AppContext): RelayState {
  const relay = relays.get(ctx);
  if (!relay) throw new Error('not the context of a test server');
  return relay;
}

/** Starts a real ModelGate on a free loopback port over a fresh database. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase(options.kind ?? 'sqlite'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SQL_DSN: database.dsn,
    SQLITE_PATH: database.sqlitePath || '/tmp/unused.db',
    SESSION_SECRET: 'test-session-secret',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    GLOBAL_API_RATE_LIMIT: '100000',
    CRITICAL_RATE_LIMIT: '100000',
    WEB_DIST_DIR: '/nonexistent-web-dist',
    // A test that stops its server with a request still open does not wait the production 30 s.
    SHUTDOWN_TIMEOUT: '2',
    // The contract check: every answer against its route's declared schema (api/response-check.ts).
    ...(process.env.MODELGATE_RESPONSE_CHECK_DIR ? { MODELGATE_RESPONSE_CHECK_DIR: process.env.MODELGATE_RESPONSE_CHECK_DIR } : {}),
    ...options.env,
  });
  const server = await startServer(config, { onRoute: options.onRoute, loggerStream: options.loggerStream });
  trackRelay(server);
  return {
    ...server,
    database,
    client: () => new ApiClient(server.url),
    async stop() {
      await server.close();
      if (!options.database) await database.drop();
    },
  };
}
