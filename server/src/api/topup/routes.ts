import {
  adminTopUpPageSchema,
  epayFormSchema,
  payLinkSchema,
  redeemedQuotaSchema,
  topUpPageSchema,
  topUpQuoteSchema,
  walletMessages,
} from '@modelgate/shared';
import { doc } from '../openapi.js';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { createTopUpOrder } from './create-top-up-order.js';
import { quoteTopUp } from './quote-top-up.js';
import { redeemCode } from './redeem-code.js';
import { findTopUps } from './find-top-ups.js';
import { redeemCodeSchema, topUpAmountSchema, topUpPageQuery, topUpPaySchema } from './schemas.js';
import { createStripeTopUp, quoteStripeTopUp } from './stripe-top-up.js';

/**
 * The wallet: redeem a code, quote and start an online top-up (Epay, or a card through Stripe
 * Checkout), the Epay callback (Stripe's webhook is in payments/), and the top-up records.
 */
export function registerTopUpRoutes(api: FastifyInstance, { ctx, guards, critical }: RouteDeps): void {
  // Redeeming and creating orders are limited like sign-in (guessing codes, piling up orders);
  // the quote is asked for as the user types, so it only has the global limit.
  const limited = { preHandler: [guards.user, critical] };
  const user = { preHandler: guards.user };
  const admin = { preHandler: guards.admin };

  api.post(
    '/user/topup',
    { ...limited, schema: doc('topup', 'redeem code', { body: redeemCodeSchema, data: redeemedQuotaSchema }) },
    async (request) => ok(await redeemCode(ctx, authOf(request), parseInput(redeemCodeSchema, request.body).key), walletMessages.redeemed),
  );
  api.post(
    '/user/amount',
    { ...user, schema: doc('topup', 'price of a top-up amount', { body: topUpAmountSchema, data: topUpQuoteSchema }) },
    async (request) => ok(quoteTopUp(ctx, authOf(request), parseInput(topUpAmountSchema, request.body)), 'success'),
  );
  api.post(
    '/user/pay',
    { ...limited, schema: doc('topup', 'create top up order', { body: topUpPaySchema, data: epayFormSchema }) },
    async (request) => ok(await createTopUpOrder(ctx, authOf(request), parseInput(topUpPaySchema, request.body)), 'success'),
  );

  api.post(
    '/user/stripe/amount',
    { ...user, schema: doc('topup', 'price of a card top-up', { body: topUpAmountSchema, data: topUpQuoteSchema }) },
    async (request) => ok(quoteStripeTopUp(ctx, authOf(request), parseInput(topUpAmountSchema, request.body)), 'success'),
  );
  api.post(
    '/user/stripe/pay',
    { ...limited, schema: doc('topup', 'create card top-up', { body: topUpAmountSchema, data: payLinkSchema }) },
    async (request) =>
      ok(await createStripeTopUp(ctx, authOf(request), parseInput(topUpAmountSchema, request.body), request.log), 'success'),
  );
  api.get(
    '/user/topup/self',
    { ...user, schema: doc('topup', 'find own top-ups', { querystring: topUpPageQuery, data: topUpPageSchema }) },
    async (request) => ok(await findTopUps(ctx, parseInput(topUpPageQuery, request.query), authOf(request).id)),
  );
  api.get(
    '/user/topup',
    { ...admin, schema: doc('topup', 'find top-ups', { querystring: topUpPageQuery, data: adminTopUpPageSchema }) },
    async (request) => ok(await findTopUps(ctx, parseInput(topUpPageQuery, request.query), null)),
  );
}
