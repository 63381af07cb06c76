import { redemptionMessages } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../routes.js';
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

  api.get('/redemption/', admin, async (request) =>
    ok(await findRedemptions(ctx, parseInput(listRedemptionsQuery, request.query))));
  api.get('/redemption/search', admin, async (request) =>
    ok(await findRedemptions(ctx, parseInput(searchRedemptionsQuery, request.query))));
  api.get('/redemption/:id', admin, async (request) =>
    ok(await findRedemption(ctx, parseInput(redemptionIdParams, request.params).id)));
  api.post('/redemption/', admin, async (request) =>
    ok(await createRedemptions(ctx, authOf(request), parseInput(createRedemptionSchema, request.body)), redemptionMessages.created));
  api.put('/redemption/', admin, async (request) => {
    if (parseInput(updateRedemptionQuery, request.query).status_only) {
      const { id, status } = parseInput(updateRedemptionStatusSchema, request.body);
      return ok(await updateRedemptionStatus(ctx, id, status), redemptionMessages.updated);
    }
    return ok(await updateRedemption(ctx, parseInput(updateRedemptionSchema, request.body)), redemptionMessages.updated);
  });
  api.delete('/redemption/:id', admin, async (request) => {
    await deleteRedemption(ctx, parseInput(redemptionIdParams, request.params).id);
    return ok(null);
  });
}
