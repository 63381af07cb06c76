import { createdRedemptionKeysSchema, noData, redemptionMessages, redemptionPageSchema, redemptionSchema } from '@modelgate/shared';
import { doc } from '../openapi.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { createRedemptions } from './create-redemptions.js';
import { deleteRedemption } from './delete-redemption.js';
import { findRedemptions } from './find-redemptions.js';
import { findRedemption } from './redemption-rules.js';
import {
  createRedemptionSchema,
  listRedemptionsQuery,
  redemptionIdParams,
  searchRedemptionsQuery,
  updateRedemptionQuery,
  updateRedemptionSchema,
  updateRedemptionStatusSchema,
} from './schemas.js';
import { updateRedemption, updateRedemptionStatus } from './update-redemption.js';

/** Redemption code management (admin only). */
export function registerRedemptionRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  const admin = { preHandler: guards.admin };

  api.get(
    '/redemption/',
    { ...admin, schema: doc('redemptions', 'find redemptions', { querystring: listRedemptionsQuery, data: redemptionPageSchema }) },
    async (request) => ok(await findRedemptions(ctx, parseInput(listRedemptionsQuery, request.query))),
  );
  api.get(
    '/redemption/search',
    { ...admin, schema: doc('redemptions', 'find redemptions', { querystring: searchRedemptionsQuery, data: redemptionPageSchema }) },
    async (request) => ok(await findRedemptions(ctx, parseInput(searchRedemptionsQuery, request.query))),
  );
  api.get(
    '/redemption/:id',
    { ...admin, schema: doc('redemptions', 'find redemption', { params: redemptionIdParams, data: redemptionSchema }) },
    async (request) => ok(await findRedemption(ctx, parseInput(redemptionIdParams, request.params).id)),
  );
  api.post(
    '/redemption/',
    { ...admin, schema: doc('redemptions', 'create redemptions', { body: createRedemptionSchema, data: createdRedemptionKeysSchema }) },
    async (request) =>
      ok(await createRedemptions(ctx, authOf(request), parseInput(createRedemptionSchema, request.body)), redemptionMessages.created),
  );
  api.put(
    '/redemption/',
    {
      ...admin,
      schema: doc('redemptions', 'update redemption (status_only: its status alone)', {
        querystring: updateRedemptionQuery,
        body: z.union([updateRedemptionSchema, updateRedemptionStatusSchema]),
        data: redemptionSchema,
      }),
    },
    async (request) => {
      if (parseInput(updateRedemptionQuery, request.query).status_only) {
        const { id, status } = parseInput(updateRedemptionStatusSchema, request.body);
        return ok(await updateRedemptionStatus(ctx, id, status), redemptionMessages.updated);
      }
      return ok(await updateRedemption(ctx, parseInput(updateRedemptionSchema, request.body)), redemptionMessages.updated);
    },
  );
  api.delete(
    '/redemption/:id',
    { ...admin, schema: doc('redemptions', 'delete redemption', { params: redemptionIdParams, data: noData }) },
    async (request) => {
      await deleteRedemption(ctx, parseInput(redemptionIdParams, request.params).id);
      return ok(null);
    },
  );
}
