import { doc } from '../openapi.js';
import { setupAnswerSchema, setupStatusSchema } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import type { RouteDeps } from '../route-deps.js';
import { setSessionCookie } from '../users/session-cookie.js';
import { completeSetup } from './complete-setup.js';
import { setupSchema } from './schemas.js';
import { getSetupStatus } from './get-setup-status.js';

/** GET and POST /api/setup: the first-run wizard (public until it has run once); the new root leaves it signed in. */
export function registerSetupRoutes(api: FastifyInstance, { ctx, critical }: RouteDeps): void {
  api.get('/setup', { schema: doc('setup', 'get setup status', { data: setupStatusSchema }) }, async () => ok(await getSetupStatus(ctx)));
  api.post(
    '/setup',
    {
      preHandler: critical,
      schema: doc('setup', 'complete setup (the root account, unless it exists, and the mode)', {
        body: setupSchema,
        data: setupAnswerSchema,
      }),
    },
    async (request, reply) => {
      const root = await completeSetup(ctx, request.body);
      if (root) setSessionCookie(request, reply, ctx.config.sessionSecret, root.user.id, root.sessionVersion);
      return ok(root?.user ?? null, '系统初始化完成');
    },
  );
}
