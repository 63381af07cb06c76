import { doc } from '../openapi.js';
import { adminLogPageSchema, deletedLogsSchema, logStatSchema, userLogPageSchema } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { deleteLogsBefore } from './delete-logs.js';
import { findLogs, getLogStat } from './find-logs.js';
import { deleteLogsQuery, logQuery } from './schemas.js';

/** Usage logs: every user's for admins, one's own for everybody, plus the 60-second stats. */
export function registerLogRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  const admin = { preHandler: guards.admin };
  const user = { preHandler: guards.user };
  const self = (request: Parameters<typeof authOf>[0]) => ({ isAdmin: false as const, userId: authOf(request).id });

  api.get('/log/', { ...admin, schema: doc('logs', 'find logs', { querystring: logQuery, data: adminLogPageSchema }) }, async (request) =>
    ok(await findLogs(ctx, { isAdmin: true }, parseInput(logQuery, request.query), requestLanguage(request))),
  );
  api.get('/log/stat', { ...admin, schema: doc('logs', 'get log stat', { querystring: logQuery, data: logStatSchema }) }, async (request) =>
    ok(await getLogStat(ctx, { isAdmin: true }, parseInput(logQuery, request.query))),
  );
  api.get(
    '/log/self',
    { ...user, schema: doc('logs', 'find own logs', { querystring: logQuery, data: userLogPageSchema }) },
    async (request) => ok(await findLogs(ctx, self(request), parseInput(logQuery, request.query), requestLanguage(request))),
  );
  api.get(
    '/log/self/stat',
    { ...user, schema: doc('logs', 'get own log stat', { querystring: logQuery, data: logStatSchema }) },
    async (request) => ok(await getLogStat(ctx, self(request), parseInput(logQuery, request.query))),
  );
  api.delete(
    '/log/',
    { ...admin, schema: doc('logs', 'delete logs before', { querystring: deleteLogsQuery, data: deletedLogsSchema }) },
    async (request) => ok(await deleteLogsBefore(ctx, parseInput(deleteLogsQuery, request.query).targetTimestamp)),
  );
}
