import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';

function isTokenValid(expected: string, header: string | undefined): boolean {
  if (!expected || !header?.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice(7));
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/**
 * GET /metrics: the Prometheus text format when MetricsEnabled, for `Authorization: Bearer
 * <MetricsToken>` only (compared in constant time; no token set means nobody). 404 when off,
 * 401 otherwise.
 */
export function registerMetricsRoute(app: FastifyInstance, ctx: AppContext): void {
  app.get('/metrics', async (request, reply) => {
    if (!ctx.metrics.isEnabled) return reply.code(404).send({ success: false, message: 'metrics are off' });
    if (!isTokenValid(ctx.options.get('MetricsToken'), request.headers.authorization)) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ success: false, message: 'a valid metrics token is required' });
    }
    const text = await ctx.metrics.scrape();
    return reply.header('content-type', ctx.metrics.registry.contentType).header('cache-control', 'no-store').send(text);
  });
}
