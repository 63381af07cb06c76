import { doc } from '../openapi.js';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import type { RouteDeps } from '../routes.js';
import { completeSetup } from './complete-setup.js';
import { setupSchema } from './schemas.js';
import { getSetupStatus } from './get-setup-status.js';

/** GET and POST /api/setup: the first-run wizard (public until it has run once). */
export function registerSetupRoutes(api: FastifyInstance, { ctx, critical }: RouteDeps): void {
  api.get('/setup', { schema: doc('setup', 'get setup status') }, async () => ok(await getSetupStatus(ctx)));
  api.post('/setup', { preHandler: critical, schema: doc('setup', 'complete setup (the root account, unless it exists, and the mode)', { body: setupSchema }) }, async (request) => {
    await completeSetup(ctx, request.body);
    return ok(null, '系统初始化完成');
  });
}
