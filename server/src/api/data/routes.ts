import { doc } from '../openapi.js';
import { quotaDataBeside, quotaDataListSchema } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { findAggregationState, findQuotaData } from './find-quota-data.js';
import { startQuotaDataJob } from './quota-data-job.js';
import { quotaDataQuery } from './schemas.js';

/**
 * Dashboard data: the hourly buckets in `data`, with aggregated_at and aggregation_interval_minutes
 * beside it. The master instance also runs the aggregation job.
 */
export function registerDataRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  api.get(
    '/data/',
    {
      preHandler: guards.admin,
      schema: doc('data', 'find quota data', { querystring: quotaDataQuery, data: quotaDataListSchema, beside: quotaDataBeside }),
    },
    async (request) => {
      const buckets = await findQuotaData(ctx, { isAdmin: true }, parseInput(quotaDataQuery, request.query));
      return { ...ok(buckets), ...(await findAggregationState(ctx)) };
    },
  );
  api.get(
    '/data/self',
    {
      preHandler: guards.user,
      schema: doc('data', 'find own quota data', { querystring: quotaDataQuery, data: quotaDataListSchema, beside: quotaDataBeside }),
    },
    async (request) => {
      const buckets = await findQuotaData(ctx, { isAdmin: false, userId: authOf(request).id }, parseInput(quotaDataQuery, request.query));
      return { ...ok(buckets), ...(await findAggregationState(ctx)) };
    },
  );

  if (ctx.config.isMaster) ctx.onClose.push(startQuotaDataJob(ctx, api.log));
}
