import { doc } from '../openapi.js';
import { pageContentSchema, platformStatusSchema } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import type { RouteDeps } from '../route-deps.js';
import { isSetupDone } from '../setup/setup-state.js';
import { getStatus } from './get-status.js';

export function registerStatusRoutes(api: FastifyInstance, { ctx }: RouteDeps): void {
  api.get('/status', { schema: doc('status', 'get status', { data: platformStatusSchema }) }, async () =>
    ok(await getStatus(ctx, await isSetupDone(ctx))),
  );
  api.get('/notice', { schema: doc('status', 'get the notice', { data: pageContentSchema }) }, async () => ok(ctx.options.get('Notice')));
  api.get('/about', { schema: doc('status', 'get the about page', { data: pageContentSchema }) }, async () => ok(ctx.options.get('About')));
  api.get('/home_page_content', { schema: doc('status', 'get the home page content', { data: pageContentSchema }) }, async () =>
    ok(ctx.options.get('HomePageContent')),
  );
}
