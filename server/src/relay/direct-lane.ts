import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { AppContext } from '../context.js';
import { canDrain, drainRequest, readBody, type BodyBudget } from '../http/request-body.js';
import { parseJsonBody } from '../lib/json-body.js';
import { languageOf } from '../lib/i18n/index.js';
import { clientStatus, retryAfterHeaders, toRelayError } from './errors.js';
import { requireObject } from './jobs/json-body.js';
import { applyQueryOptions, jsonRoutes, type JobBuilder } from './routes/json-routes.js';
import { authenticateToken } from './pipeline/authenticate.js';
import type { RelayExchange } from './pipeline/exchange.js';
import { runRelay } from './pipeline/relay-call.js';
import type { RelayState } from './state.js';

/** The instance's budget for request bodies being read, and how much of a refused body is drained (http/request-body.ts). */
export interface RelayBodies {
  budget: BodyBudget;
  drainBytes: number;
}

/** Serves a request and returns true, or returns false and leaves it to Fastify. */
export type DirectLane = (request: IncomingMessage, response: ServerResponse, requestId: string) => boolean;

/** What the lane's calls share. */
interface Lane {
  ctx: AppContext;
  relay: RelayState;
  log: Logger;
  bodyLimit: number;
  maxJsonDepth: number;
  bodies: RelayBodies;
  ipOf(request: IncomingMessage): string;
  /** The server drains or the app closes: new calls are refused (503), answers close their connection. */
  isClosing: boolean;
}

const jsonType = 'application/json';
const errorContentType = 'application/json; charset=utf-8';

/** `application/json`, optionally with parameters; any other type is Fastify's to accept or refuse. */
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined || value.length < jsonType.length) return false;
  const type = value.toLowerCase();
  if (!type.startsWith(jsonType)) return false;
  const next = type.charCodeAt(jsonType.length);
  return Number.isNaN(next) || next === 59 /* ; */ || next === 32; /* space */
}

/** The one `api-version` of a query string, as Fastify's query parser would give it. */
function apiVersionOf(query: string): string | undefined {
  const values = new URLSearchParams(query).getAll('api-version');
  return values.length === 1 ? values[0] : undefined;
}

/** A relay call served straight from Node's HTTP server. */
class DirectExchange implements RelayExchange {
  readonly ip: string;
  readonly headers: IncomingHttpHeaders;

  constructor(
    private readonly lane: Lane,
    request: IncomingMessage,
    readonly raw: ServerResponse,
    readonly path: string,
    private readonly requestId: string,
  ) {
    this.ip = lane.ipOf(request);
    this.headers = request.headers;
  }

  startStream(headers: OutgoingHttpHeaders): void {
    const head: OutgoingHttpHeaders = {};
    for (const name in headers) head[name] = headers[name];
    this.raw.writeHead(200, this.withCommon(head));
  }

  send(status: number, contentType: string, body: Buffer | string): void {
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    this.raw.writeHead(status, this.withCommon({ 'content-type': contentType, 'content-length': length }));
    this.raw.end(body);
  }

  /** An OpenAI-shaped error in the caller's language, unless the answer has already begun. */
  fail(error: unknown, extra?: OutgoingHttpHeaders): number {
    const relayError = toRelayError(
      error as Error,
      { error: (object, message) => this.logger().error(object, message) },
      languageOf(this.headers['accept-language']),
    );
    const status = clientStatus(relayError);
    if (!this.raw.headersSent && !this.raw.destroyed) {
      const body = JSON.stringify(relayError.toBody());
      this.raw.writeHead(
        status,
        this.withCommon({
          'content-type': errorContentType,
          'content-length': Buffer.byteLength(body),
          ...retryAfterHeaders(relayError),
          ...extra,
        }),
      );
      this.raw.end(body);
    }
    return status;
  }

  /** The access line Fastify's onResponse hook writes for its routes: successes at debug, failures at info. */
  logLine(status: number, startedAt: number): void {
    const level = status < 400 ? 'debug' : 'info';
    if (!this.lane.log.isLevelEnabled(level)) return;
    this.logger()[level]({ method: 'POST', url: this.path, status, ms: Math.round(performance.now() - startedAt) }, 'request');
  }

  private logger(): Logger {
    return this.lane.log.child({ reqId: this.requestId });
  }

  private withCommon(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
    headers['X-Request-Id'] = this.requestId;
    if (this.lane.isClosing) headers.connection = 'close';
    return headers;
  }
}

/**
 * Serves one call: the caller is checked from the headers first, so a refused request is answered
 * before its body is read (and the body drained, not buffered); then the body is read within the
 * limit and the body budget, parsed with the depth bound, and relayed.
 */
async function serve(
  lane: Lane,
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  path: string,
  build: JobBuilder,
  query: string | null,
): Promise<void> {
  const startedAt = performance.now();
  const exchange = new DirectExchange(lane, request, response, path, requestId);
  let status = 200;
  try {
    const overloaded = lane.ctx.overload.refusal();
    if (overloaded) throw overloaded;
    const found = authenticateToken(lane.ctx, lane.relay, exchange);
    const caller = found instanceof Promise ? await found : found;
    const body = await readBody(request, lane.bodyLimit, lane.bodies.budget, (bytes) =>
      parseJsonBody(bytes.toString('utf8'), lane.maxJsonDepth),
    );
    const job = build(requireObject(body));
    if (query !== null) applyQueryOptions(job, apiVersionOf(query));
    await runRelay(lane.ctx, lane.relay, exchange, caller, job);
  } catch (error) {
    const { drainBytes } = lane.bodies;
    // What is left of a refused body is drained so the client reads the answer; a body declared past that is cut.
    const isDrained = canDrain(request, drainBytes);
    status = exchange.fail(error, isDrained ? undefined : { connection: 'close' });
    if (isDrained) drainRequest(request, drainBytes);
  }
  exchange.logLine(status, startedAt);
}

/**
 * The direct lane: `POST` of a JSON body to the OpenAI JSON relay routes (routes/json-routes.ts) is served
 * from Node's HTTP server without Fastify's routing, body parsing, hooks and reply (a sizeable share
 * of a relay call's CPU, see docs/performance.md). It keeps Fastify's behaviour for these calls:
 * the same body limit, JSON parsing (secure-json-parse, prototype poisoning refused) and messages,
 * trust-proxy client address, X-Request-Id, OpenAI-shaped errors and access log lines. Anything else
 * — other methods, paths or content types, and every call while the app shuts down — goes to Fastify.
 */
export function createDirectLane(
  ctx: AppContext,
  relay: RelayState,
  log: FastifyBaseLogger,
  bodies: RelayBodies,
): { serve: DirectLane; close(): void } {
  let isClosed = false;
  const trust = ctx.config.trustProxy;
  const lane: Lane = {
    ctx,
    relay,
    log: log as unknown as Logger,
    bodyLimit: ctx.config.maxRequestBodyBytes,
    maxJsonDepth: ctx.config.maxJsonDepth,
    bodies,
    // The trust function Fastify is given (app.ts), so both pick the same client address.
    ipOf: trust ? (request) => proxyAddr(request, trust) ?? '' : (request) => request.socket.remoteAddress ?? '',
    // Draining (lifecycle.ts) or Fastify closing: answers say Connection: close, new calls go to the refusal.
    get isClosing() {
      return isClosed || ctx.lifecycle.isDraining;
    },
  };
  return {
    serve(request, response, requestId) {
      if (request.method !== 'POST' || lane.isClosing) return false;
      const url = request.url ?? '';
      const mark = url.indexOf('?');
      const path = mark < 0 ? url : url.slice(0, mark);
      // Routes match with or without one trailing slash (Fastify's ignoreTrailingSlash).
      const build = jsonRoutes.get(path.length > 1 && path.charCodeAt(path.length - 1) === 47 /* / */ ? path.slice(0, -1) : path);
      if (!build || !isJsonContentType(request.headers['content-type'])) return false;
      void serve(lane, request, response, requestId, path, build, mark < 0 ? null : url.slice(mark + 1));
      return true;
    },
    close() {
      isClosed = true;
    },
  };
}
