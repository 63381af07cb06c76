import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import type { RouteDeps } from '../routes.js';
import { parseInput } from '../validate.js';
import { optionUpdateSchema } from './schemas.js';

/** GET /api/option/ lists every non-secret option; PUT stores one (validated by the registry). */
export function registerOptionRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  const root = { preHandler: guards.root };
  api.get('/option/', root, async () => ok(ctx.options.listPublic()));
  api.put('/option/', root, async (request) => {
    const { key, value } = parseInput(optionUpdateSchema, request.body);
    await ctx.options.set(key, value);
    return ok(null, '更新成功');
  });
}
