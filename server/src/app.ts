import { randomUUID } from 'node:crypto';
import http from 'node:http';
import fastifyCookie from '@fastify/cookie';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, DestinationStream, Level, Logger } from 'pino';
import type { AppContext } from './context.js';
import type { Config } from './config.js';
import { installErrorHandlers, sendFrameworkError } from './api/error-handler.js';
import { answerClientError } from './api/client-error.js';
import { localizeMessage } from './api/localize.js';
import { documentOnly, registerOpenApi } from './api/openapi.js';
import { installResponseCheck } from './api/response-check.js';
import { registerApiRoutes } from './api/routes.js';
import { createSecurityHeaders } from './api/security-headers.js';
import { registerConsole } from './api/static.js';
import { fail } from './lib/envelope.js';
import { loggerOptions } from './lib/logger.js';
import type { Lifecycle } from './lifecycle.js';
import { applyCors } from './relay/cors.js';
import type { DirectLane } from './relay/direct-lane.js';
import { registerRelay } from './relay/plugin.js';
import { relayFacade } from './relay/facade.js';
import type { RelayState } from './relay/state.js';
import { isRelayPath } from './lib/relay-paths.js';
import { registerMetricsRoute } from './metrics/route.js';
import { installBodyHandling } from './http/json-parser.js';
import { BodyBudget } from './http/request-body.js';

const managementBodyLimit = 2 * 1024 * 1024;

function requestIdOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^[\w.-]{1,64}$/.test(value) ? value : randomUUID();
}

/** The id given to a raw request by the server's request handler, read back by genReqId. */
const requestIdKey = Symbol('modelgate.requestId');
type TaggedRequest = http.IncomingMessage & { [requestIdKey]?: string };

/**
 * The HTTP server with three steps before Fastify: the relay's CORS (relay/cors.ts: headers on relay
 * answers, preflights answered); the request id is chosen; the relay's direct lane
 * (relay/direct-lane.ts) serves the JSON calls of the OpenAI routes itself; for all else the id is
 * set as the X-Request-Id response header on the raw response (Node merges it into the head whatever
 * way the answer is written, hijacked streams included), so no app-wide onRequest hook runs per request.
 * Keep-alive and socket timeouts as Fastify sets them on the server it creates itself; a client that
 * is slower than REQUEST_HEADERS_TIMEOUT with its headers or REQUEST_BODY_TIMEOUT with the whole request
 * gets Node's 408 and its connection closed (the direct lane and Fastify's routes alike).
 */
function createHttpServer(
  handler: http.RequestListener,
  options: { keepAliveTimeout?: number; connectionTimeout?: number },
  lane: { serve: DirectLane | null },
  config: Config,
  lifecycle: Lifecycle,
): http.Server {
  const headersTimeout = config.requestHeadersTimeoutSeconds * 1000;
  // Node checks the deadlines on an interval: often enough that a limit is kept to within a quarter of the headers timeout.
  const connectionsCheckingInterval = Math.max(100, Math.min(30_000, Math.floor(headersTimeout / 4)));
  const server = http.createServer(
    { headersTimeout, requestTimeout: config.requestBodyTimeoutSeconds * 1000, connectionsCheckingInterval },
    (request: TaggedRequest, response) => {
      // /healthz, /readyz, and the 503 while shutting down (lifecycle.ts), before CORS, the direct lane and Fastify.
      if (lifecycle.intercept(request, response)) return;
      if (applyCors(request, response)) return;
      const id = requestIdOf(request.headers['x-request-id']);
      if (lane.serve?.(request, response, id)) return;
      request[requestIdKey] = id;
      response.setHeader('X-Request-Id', id);
      handler(request, response);
    },
  );
  server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
  server.setTimeout(options.connectionTimeout ?? 0);
  return server;
}

type LogArgs = Parameters<Logger['info']>;

/**
 * request.log without a pino child per request: the child (reqId binding, redaction of bindings) is
 * made on the first line that is actually written. Relay successes log nothing at the default level,
 * so they never make one. Lines that are written are the child's own, so they are unchanged.
 */
class LazyRequestLogger {
  private real: Logger | null = null;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private logger(): Logger {
    return (this.real ??= this.parent.child(this.bindings, this.options));
  }

  get level(): string {
    return this.real?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  isLevelEnabled(level: Level): boolean {
    return this.real || this.options.level !== undefined ? this.logger().isLevelEnabled(level) : this.parent.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.logger().child(bindings, options);
  }

  silent(): void {}

  fatal(...args: LogArgs): void {
    if (this.isLevelEnabled('fatal')) this.logger().fatal(...args);
  }

  error(...args: LogArgs): void {
    if (this.isLevelEnabled('error')) this.logger().error(...args);
  }

  warn(...args: LogArgs): void {
    if (this.isLevelEnabled('warn')) this.logger().warn(...args);
  }

  info(...args: LogArgs): void {
    if (this.isLevelEnabled('info')) this.logger().info(...args);
  }

  debug(...args: LogArgs): void {
    if (this.isLevelEnabled('debug')) this.logger().debug(...args);
  }

  trace(...args: LogArgs): void {
    if (this.isLevelEnabled('trace')) this.logger().trace(...args);
  }
}

export interface BuildAppOptions {
  /** Where log lines go instead of stdout (tests read them back). */
  loggerStream?: DestinationStream;
  /** Told about every route as it is registered (the bad-input sweep enumerates them). */
  onRoute?: (route: RouteOptions) => void;
}

/** Builds the Fastify app: plugins, /api, relay routes, the console and the error handlers. */
export async function buildApp(ctx: AppContext, options: BuildAppOptions = {}): Promise<{ app: FastifyInstance; relay: RelayState }> {
  const lane: { serve: DirectLane | null } = { serve: null };
  const app = Fastify({
    logger: { ...loggerOptions(ctx.config.logLevel), stream: options.loggerStream },
    // One line per request from the onResponse hook below instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.config.maxRequestBodyBytes,
    // The one trust function the direct lane uses too: request.ip, .protocol and .host follow its hops.
    trustProxy: ctx.config.trustProxy ?? false,
    requestIdHeader: false,
    childLoggerFactory: (logger, bindings, options) =>
      new LazyRequestLogger(logger as unknown as Logger, bindings, options) as unknown as FastifyBaseLogger,
    serverFactory: (handler, serverOptions) => createHttpServer(handler, serverOptions, lane, ctx.config, ctx.lifecycle),
    // Chosen by createHttpServer (which also sets the header); app.inject() bypasses the server.
    genReqId: (request: TaggedRequest) => request[requestIdKey] ?? requestIdOf(request.headers['x-request-id']),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    frameworkErrors: sendFrameworkError,
    clientErrorHandler: answerClientError,
  });
  app.decorateRequest('auth', null);
  const { onRoute } = options;
  if (onRoute) app.addHook('onRoute', (route) => onRoute(route));
  // Callback-style hook: no promise per request (it runs on every relay call).
  app.addHook('onResponse', (request, reply, done) => {
    // The relay's successful calls are logged at debug (they are the gateway's bulk traffic and each
    // has its consume log row); its failures and every other route at info.
    const level = reply.statusCode < 400 && isRelayPath(request.url) ? 'debug' : 'info';
    if ((request.log as unknown as Logger).isLevelEnabled(level)) {
      request.log[level](
        { method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    }
    done();
  });
  installErrorHandlers(app);
  // Bodies: the route's limit, the instance's memory budget, the JSON depth bound, refusals drained.
  const bodies = {
    budget: new BodyBudget(ctx.config.bodyMemoryBytes),
    drainBytes: 2 * Math.max(ctx.config.maxRequestBodyBytes, managementBodyLimit),
  };
  installBodyHandling(app, bodies.budget, ctx.config.maxJsonDepth, bodies.drainBytes);
  // Security headers on the console and /api only: the relay's hot path gets no hook for them.
  const securityHeaders = createSecurityHeaders(ctx.options);

  await registerOpenApi(app, ctx.config.version);
  // The relay first: the API receives its facade (probes, the model catalogue), never its state.
  const { serve, relay } = await registerRelay(app, ctx, bodies);
  lane.serve = serve;
  const facade = relayFacade(relay);
  await app.register(
    async (api) => {
      documentOnly(api);
      if (ctx.config.responseCheckDir) installResponseCheck(api, ctx.config.responseCheckDir);
      api.addHook('onRequest', securityHeaders.onRequest);
      // Messages in the caller's language (api/localize.ts); the 404 of /api is answered here to get it too.
      api.addHook('preSerialization', localizeMessage);
      api.setNotFoundHandler((_request, reply) => reply.code(404).send(fail('接口不存在')));
      // Sessions are read only under /api and by /pg (which registers its own): no cookie hooks on /v1.
      await api.register(fastifyCookie);
      api.addHook('onRoute', (route) => {
        route.bodyLimit ??= managementBodyLimit;
      });
      await registerApiRoutes(api, ctx, facade);
    },
    { prefix: '/api' },
  );

  registerMetricsRoute(app, ctx);

  await registerConsole(app, ctx.config.webDistDir, securityHeaders);
  return { app, relay };
}
