import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { sql } from 'kysely';
import type { Cache } from './cache/types.js';
import type { Storage } from './db/index.js';
import { languageOf, translate } from './lib/i18n/index.js';

/** A readiness check gets this long before it counts as failed. */
const checkTimeoutMs = 2_000;

/**
 * Health and graceful shutdown at the HTTP server, before the direct lane and Fastify, so both are
 * covered: `/healthz` (the process answers), `/readyz` (the database and Redis answer; not while
 * shutting down), and the drain: once it begins, new requests get 503 with `Connection: close`, idle
 * keep-alive connections are closed as requests finish, and shutdown waits until no connection is
 * left (the server's connections are the requests in flight). Relay calls are counted besides, so
 * a stream cut at the deadline is still billed before shutdown flushes the ledger.
 */
export class Lifecycle {
  isDraining = false;
  /** Relay calls not yet settled: a cut stream is billed after its connection is gone, before shutdown goes on. */
  private calls = 0;
  private onCallsDone: (() => void) | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly cache: Cache,
  ) {}

  /** Answers health checks and refuses new work while draining; true when the request was answered here. */
  intercept(request: IncomingMessage, response: ServerResponse): boolean {
    const url = request.url ?? '';
    if (url.charCodeAt(1) === 104 /* h */ && (url === '/healthz' || url.startsWith('/healthz?'))) {
      answer(response, 200, { status: 'ok' });
      return true;
    }
    if (url.charCodeAt(1) === 114 /* r */ && (url === '/readyz' || url.startsWith('/readyz?'))) {
      void this.answerReadiness(response);
      return true;
    }
    if (this.isDraining) {
      response.setHeader('Connection', 'close');
      const message = translate('服务正在关闭，请稍后重试', languageOf(request.headers['accept-language']));
      answer(
        response,
        503,
        url.startsWith('/api/') ? { success: false, message } : { error: { message, type: 'server_error', code: 'server_shutting_down' } },
      );
      return true;
    }
    return false;
  }

  get callsInFlight(): number {
    return this.calls;
  }

  callStarted(): void {
    this.calls += 1;
  }

  callEnded(): void {
    this.calls -= 1;
    if (this.calls === 0 && this.onCallsDone) this.onCallsDone();
  }

  /** Resolves once every relay call has settled, or after `timeoutMs`. */
  private callsSettled(timeoutMs: number): Promise<void> {
    if (this.calls === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onCallsDone = null;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.onCallsDone = done;
    });
  }

  /**
   * Stops taking requests and waits up to `timeoutMs` for those in flight (streams included) to
   * finish; then cuts the rest. Answers how many connections had to be cut.
   */
  async drain(server: Server, timeoutMs: number): Promise<number> {
    this.isDraining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // A connection whose request finished is idle: closed at once, so only requests in flight keep the server open.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const isDone = await Promise.race([
      closed.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    let cut = 0;
    if (!isDone) {
      cut = await new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)));
      server.closeAllConnections();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    }
    clearInterval(sweep);
    await this.callsSettled(5_000);
    return cut;
  }

  private async answerReadiness(response: ServerResponse): Promise<void> {
    if (this.isDraining) return answer(response, 503, { status: 'shutting_down' });
    const [database, redis] = await Promise.all([
      withTimeout(sql`select 1`.execute(this.storage.db)),
      this.cache.kind === 'redis' ? withTimeout(this.cache.ping()) : Promise.resolve('ok' as const),
    ]);
    const checks = this.cache.kind === 'redis' ? { database, redis } : { database };
    const isReady = database === 'ok' && redis === 'ok';
    answer(response, isReady ? 200 : 503, { status: isReady ? 'ready' : 'unavailable', checks });
  }
}

async function withTimeout(check: Promise<unknown>): Promise<'ok' | 'failed'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'failed'>((resolve) => {
    timer = setTimeout(() => resolve('failed'), checkTimeoutMs);
  });
  try {
    return await Promise.race([
      check.then(
        () => 'ok' as const,
        () => 'failed' as const,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function answer(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  response.end(text);
}
