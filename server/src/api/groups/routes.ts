import { doc } from '../openapi.js';
import type { FastifyInstance } from 'fastify';
import { groupNamesSchema } from '@modelgate/shared';
import { ok } from '../../lib/envelope.js';
import type { RouteDeps } from '../route-deps.js';
import { findGroups } from './find-groups.js';

export function registerGroupRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  api.get('/group/', { preHandler: guards.admin, schema: doc('groups', 'list groups', { data: groupNamesSchema }) }, async () =>
    ok(findGroups(ctx)),
  );
}
