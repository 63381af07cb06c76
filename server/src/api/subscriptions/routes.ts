import {
  noData,
  payLinkSchema,
  planSchema,
  subscriptionMessages,
  subscriptionsOfUserSchema,
  userSubscriptionSchema,
} from '@modelgate/shared';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import { doc } from '../openapi.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import {
  cancelOwnSubscription,
  findOwnSubscriptions,
  findUserSubscriptions,
  grantPlan,
  revokeSubscription,
  setFundingPreference,
} from './manage-subscriptions.js';
import { startSubscriptionPeriods } from './period-job.js';
import { createPlan, deletePlan, findPlans, updatePlan } from './plans.js';
import {
  createPlanSchema,
  fundingPreferenceSchema,
  grantPlanSchema,
  idParams,
  subscribePlanSchema,
  subscriptionIdBody,
  updatePlanSchema,
} from './schemas.js';
import { subscribePlan } from './subscribe-plan.js';

/** Plans (admins define them), buying one by card, a user's subscriptions and funding preference. */
export function registerSubscriptionRoutes(api: FastifyInstance, { ctx, guards, critical }: RouteDeps): void {
  startSubscriptionPeriods(ctx, api.log);
  const user = { preHandler: guards.user };
  const limited = { preHandler: [guards.user, critical] };
  const admin = { preHandler: guards.admin };

  api.get('/subscription/plans', { ...user, schema: doc('subscriptions', 'find enabled plans', { data: z.array(planSchema) }) }, async () =>
    ok(await findPlans(ctx, true)),
  );
  api.get(
    '/subscription/self',
    { ...user, schema: doc('subscriptions', 'find own subscriptions', { data: subscriptionsOfUserSchema }) },
    async (request) => ok(await findOwnSubscriptions(ctx, authOf(request))),
  );
  api.put(
    '/subscription/self/preference',
    { ...user, schema: doc('subscriptions', 'set funding preference', { body: fundingPreferenceSchema, data: noData }) },
    async (request) => {
      await setFundingPreference(ctx, authOf(request), parseInput(fundingPreferenceSchema, request.body).billing_preference);
      return ok(null, subscriptionMessages.preferenceSaved);
    },
  );
  api.post(
    '/subscription/self/cancel',
    { ...user, schema: doc('subscriptions', 'cancel own subscription', { body: subscriptionIdBody, data: noData }) },
    async (request) => {
      await cancelOwnSubscription(ctx, authOf(request), parseInput(subscriptionIdBody, request.body).id, request.log);
      return ok(null, subscriptionMessages.cancelled);
    },
  );
  api.post(
    '/subscription/stripe/pay',
    { ...limited, schema: doc('subscriptions', 'subscribe by card', { body: subscribePlanSchema, data: payLinkSchema }) },
    async (request) =>
      ok(await subscribePlan(ctx, authOf(request), parseInput(subscribePlanSchema, request.body).plan_id, request.log), 'success'),
  );

  api.get('/subscription/admin/plans', { ...admin, schema: doc('subscriptions', 'find plans', { data: z.array(planSchema) }) }, async () =>
    ok(await findPlans(ctx, false)),
  );
  api.post(
    '/subscription/admin/plan',
    { ...admin, schema: doc('subscriptions', 'create plan', { body: createPlanSchema, data: planSchema }) },
    async (request) => ok(await createPlan(ctx, parseInput(createPlanSchema, request.body)), subscriptionMessages.planSaved),
  );
  api.put(
    '/subscription/admin/plan',
    { ...admin, schema: doc('subscriptions', 'update plan', { body: updatePlanSchema, data: planSchema }) },
    async (request) => ok(await updatePlan(ctx, parseInput(updatePlanSchema, request.body)), subscriptionMessages.planSaved),
  );
  api.delete(
    '/subscription/admin/plan/:id',
    { ...admin, schema: doc('subscriptions', 'delete plan', { params: idParams, data: noData }) },
    async (request) => {
      await deletePlan(ctx, parseInput(idParams, request.params).id);
      return ok(null);
    },
  );
  api.get(
    '/subscription/admin/user/:id',
    { ...admin, schema: doc('subscriptions', 'find user subscriptions', { params: idParams, data: subscriptionsOfUserSchema }) },
    async (request) => ok(await findUserSubscriptions(ctx, parseInput(idParams, request.params).id)),
  );
  api.post(
    '/subscription/admin/grant',
    { ...admin, schema: doc('subscriptions', 'grant plan', { body: grantPlanSchema, data: userSubscriptionSchema }) },
    async (request) => ok(await grantPlan(ctx, authOf(request), parseInput(grantPlanSchema, request.body)), subscriptionMessages.granted),
  );
  api.post(
    '/subscription/admin/revoke',
    { ...admin, schema: doc('subscriptions', 'revoke subscription', { body: subscriptionIdBody, data: noData }) },
    async (request) => {
      await revokeSubscription(ctx, authOf(request), parseInput(subscriptionIdBody, request.body).id, request.log);
      return ok(null, subscriptionMessages.revoked);
    },
  );
}
