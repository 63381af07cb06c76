import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { RelayCaller } from './authenticate.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who calls: resolved from the headers by `authenticateFirst`, before the body is read. */
    relayCaller: RelayCaller | null;
  }
}

/** Gives every request the `relayCaller` slot (one shape for all requests, as Fastify wants). */
export function decorateRelayCaller(app: FastifyInstance): void {
  app.decorateRequest('relayCaller', null);
}

/**
 * An onRequest hook for a relay route with a body: the key, the token's state and the IP allow-list
 * are checked from the headers, so a refused request is answered before its body is read (and its
 * body is drained, not buffered: http/json-parser.ts).
 */
export function authenticateFirst(resolve: (request: FastifyRequest) => Promise<RelayCaller>): onRequestAsyncHookHandler {
  return async (request) => {
    request.relayCaller = await resolve(request);
  };
}

/** The caller `authenticateFirst` resolved for this request. */
export function callerOf(request: FastifyRequest): RelayCaller {
  const caller = request.relayCaller;
  if (!caller) throw new Error('the route has no authenticateFirst hook');
  return caller;
}
