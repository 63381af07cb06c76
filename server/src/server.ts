import { QuotaReminder } from './notify/quota-reminder.js';
import { relayFacade } from './relay/facade.js';
import type { RelayState } from './relay/state.js';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { startChannelChecks } from './api/channels/probe/channel-checks.js';
import { buildApp, type BuildAppOptions } from './app.js';
import { createBus } from './cache/bus.js';
import { openCache } from './cache/index.js';
import type { Config } from './config.js';
import { migrate, openStorage, type Storage } from './db/index.js';
import { OptionStore } from './options/store.js';
import { Lifecycle } from './lifecycle.js';
import { OverloadGuard } from './lib/overload-guard.js';
import { Metrics } from './metrics/metrics.js';
import { startTracing } from './tracing/tracer.js';

export interface RunningServer {
  app: FastifyInstance;
  ctx: AppContext;
  /** The relay's in-memory state: for tests only; the server itself reaches it through relay/facade.ts. */
  relay: RelayState;
  /** Base URL such as http://127.0.0.1:3000 once listening. */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Reuse an opened storage (tests run the same app on several dialects). */
  storage?: Storage;
  listen?: boolean;
  /** Where log lines go instead of stdout (tests read them back). */
  loggerStream?: BuildAppOptions['loggerStream'];
  /** Told about every route as it is registered. */
  onRoute?: BuildAppOptions['onRoute'];
}

/** Opens storage and cache, migrates (master only), loads options, builds and starts the app. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  let reportIdleError = (error: Error) => process.emitWarning(`database connection lost: ${error.message}`);
  let reportCheckpointError = (error: Error) => process.emitWarning(error.message);
  const storage =
    options.storage ??
    openStorage({
      ...config.database,
      onIdleError: (error) => reportIdleError(error),
      checkpointInBackground: true,
      onCheckpointError: (error) => reportCheckpointError(error),
    });
  if (config.isMaster) await migrate(storage);
  let reportCacheError = (error: Error) => process.emitWarning(`Redis connection failed: ${error.message}`);
  const cache = await openCache(config.redisUrl, config.redisKeyPrefix, (error) => reportCacheError(error));
  const optionStore = new OptionStore(storage, cache);
  await optionStore.start(config.syncFrequencySeconds);
  const ctx: AppContext = {
    config,
    storage,
    cache,
    options: optionStore,
    bus: createBus(cache),
    startTime: Math.floor(Date.now() / 1000),
    onClose: [],
    lifecycle: new Lifecycle(storage, cache),
    metrics: new Metrics(optionStore),
    overload: new OverloadGuard(optionStore),
    // The trace SDK is loaded only when an OTLP endpoint is configured (off: nothing of it is loaded).
    tracing: config.tracing === null ? null : await startTracing(config.tracing, config.version),
  };
  const { app, relay } = await buildApp(ctx, { loggerStream: options.loggerStream, onRoute: options.onRoute });
  // The quota reminder (notify/) hears of the users each ledger flush wrote; the relay does not know it.
  const reminder = new QuotaReminder(ctx, app.log);
  const facade = relayFacade(relay);
  facade.onUsersWritten((users) => reminder.check(users));
  for (const warning of config.warnings) app.log.warn(warning);
  ctx.tracing?.setLog(app.log);
  reportIdleError = (error) => app.log.warn({ err: error }, 'database connection lost; it will be reopened');
  reportCheckpointError = (error) => app.log.warn({ err: error }, 'SQLite checkpoint');
  reportCacheError = (error) => app.log.warn({ err: error }, 'Redis connection failed; it is retried');
  // The periodic channel test and balance refresh (one instance of a cluster runs each).
  const channelChecks = startChannelChecks(ctx, facade, app.log);
  ctx.overload.start(app.log);
  let url = '';
  if (options.listen !== false) {
    url = await app.listen({ port: config.port, host: config.host });
    url = url.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1');
  }
  let closed = false;
  return {
    app,
    ctx,
    relay,
    url,
    async close() {
      if (closed) return;
      closed = true;
      // No new check starts; one in progress stops after its current channel (awaited below).
      const checksStopped = channelChecks.stop();
      // Graceful: /readyz turns 503 and new requests are refused; what is in flight (streams included)
      // may finish for SHUTDOWN_TIMEOUT, then is cut (a cut stream is billed for what it produced).
      if (url) {
        const cut = await ctx.lifecycle.drain(app.server, config.shutdownTimeoutSeconds * 1000);
        if (cut > 0) app.log.warn({ connections: cut }, 'shutdown: requests still in flight after SHUTDOWN_TIMEOUT were cut');
      }
      ctx.lifecycle.isDraining = true;
      await checksStopped;
      ctx.overload.stop();
      await app.close();
      // The spans of the calls just drained (and of those cut) go out before the process ends.
      await ctx.tracing?.shutdown();
      for (const task of ctx.onClose) await task();
      optionStore.stop();
      await cache.close();
      if (!options.storage) await storage.close();
    },
  };
}
