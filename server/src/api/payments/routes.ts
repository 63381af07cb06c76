import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { ok } from '../../lib/envelope.js';
import { doc } from '../openapi.js';
import type { RouteDeps } from '../routes.js';
import { paymentCallbackRoute } from '../rate-limit.js';
import { stripeEventBody } from './schemas.js';
import { handleStripeWebhook } from './stripe-webhook.js';

/** Stripe's events are small; anything larger is not one. */
const webhookBodyLimit = 512 * 1024;

/** Called by Stripe, not by a signed-in user: the signature over the raw body is the authentication. */
function registerStripeWebhook(api: FastifyInstance, ctx: AppContext): void {
  api.post('/stripe/webhook', { ...paymentCallbackRoute, bodyLimit: webhookBodyLimit, schema: doc('payments', 'stripe webhook', { body: stripeEventBody }) }, async (request) => {
    const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const header = request.headers['stripe-signature'];
    return ok(null, await handleStripeWebhook(ctx, raw, typeof header === 'string' ? header : undefined, request.log));
  });
}

/**
 * The payment gateways' callbacks that are not under a user's session. Stripe signs the exact
 * bytes it sends, so its webhook reads JSON raw (a Buffer, not parsed) in a scope of its own.
 */
export async function registerPaymentRoutes(api: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  await api.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: webhookBodyLimit }, (_request, body, done) => done(null, body));
    registerStripeWebhook(scope, ctx);
  });
}
