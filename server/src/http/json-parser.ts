import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '../lib/json-body.js';
import { canDrain, drainRequest, readBody, type BodyBudget } from './request-body.js';

/**
 * Fastify's JSON bodies, read within the route's limit and the instance's body budget
 * (request-body.ts) and parsed with the depth bound (lib/json-body.ts), on every route.
 * A refused request's body is drained rather than cut (request-body.ts says why): Fastify marks
 * a failed body read `Connection: close`, which the onError hook takes back while it drains.
 */
export function installBodyHandling(app: FastifyInstance, budget: BodyBudget, maxDepth: number, drainBytes: number): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    const limit = request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 1024 * 1024;
    readBody(payload as IncomingMessage, limit, budget, (bytes) => parseJsonBody(bytes.toString('utf8'), maxDepth)).then(
      (body) => done(null, body),
      (error: Error) => done(error, undefined),
    );
  });
  app.addHook('onError', (request, reply, _error, done) => {
    if (!request.raw.complete && canDrain(request.raw, drainBytes)) {
      reply.removeHeader('connection');
      drainRequest(request.raw, drainBytes);
    }
    done();
  });
}
