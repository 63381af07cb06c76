import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import { epayNotifyMediaType, epayNotifyReplySchema, noData } from '@modelgate/shared';
import { ok } from '../../lib/envelope.js';
import { doc } from '../openapi.js';
import type { RouteDeps } from '../route-deps.js';
import { paymentCallbackRoute } from '../rate-limit.js';
import { parseInput } from '../validate.js';
import { completeEpayOrder } from '../topup/complete-epay-order.js';
import { epayNotifyQuery } from '../topup/schemas.js';
import { stripeEventBody } from './schemas.js';
import { handleStripeWebhook } from './stripe-webhook.js';

/** Stripe's events are small; anything larger is not one. */
const webhookBodyLimit = 512 * 1024;

/** Called by Stripe, not by a signed-in user: the signature over the raw body is the authentication. */
function registerStripeWebhook(api: FastifyInstance, ctx: AppContext): void {
  api.post(
    '/stripe/webhook',
    {
      ...paymentCallbackRoute,
      bodyLimit: webhookBodyLimit,
      schema: doc('payments', 'stripe webhook', { body: stripeEventBody, data: noData }),
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['stripe-signature'];
      return ok(null, await handleStripeWebhook(ctx, raw, typeof header === 'string' ? header : undefined, request.log));
    },
  );
}

/** An Epay notify's fields are a few short values; anything larger is not one. */
const epayBodyLimit = 64 * 1024;

/** A form body's fields, the first value of each (as Go's PostForm.Get, which new-api reads). */
function formFields(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) if (!Object.hasOwn(fields, key)) fields[key] = value;
  return fields;
}

/**
 * Called by the Epay gateway, not by a signed-in user: the MD5 signature is the authentication.
 * Gateways send the notify as a GET with the fields in the query, or as a POST with them in a form
 * body (new-api answers both); either way the answer is the text 'success' or 'fail'.
 */
function registerEpayNotify(api: FastifyInstance, ctx: AppContext): void {
  const answer = async (reply: FastifyReply, fields: Record<string, string>) =>
    reply.type('text/plain; charset=utf-8').send(await completeEpayOrder(ctx, fields));
  api.get(
    '/user/epay/notify',
    {
      ...paymentCallbackRoute,
      schema: doc('topup', 'complete epay order', {
        querystring: epayNotifyQuery,
        produces: epayNotifyMediaType,
        data: epayNotifyReplySchema,
      }),
    },
    async (request, reply) => answer(reply, parseInput(epayNotifyQuery, request.query)),
  );
  api.post(
    '/user/epay/notify',
    {
      ...paymentCallbackRoute,
      bodyLimit: epayBodyLimit,
      schema: doc('topup', 'complete epay order (form post)', {
        body: epayNotifyQuery,
        produces: epayNotifyMediaType,
        data: epayNotifyReplySchema,
      }),
    },
    async (request, reply) => answer(reply, parseInput(epayNotifyQuery, request.body ?? {})),
  );
}

/**
 * The payment gateways' callbacks that are not under a user's session, each in a scope of its own
 * so its body parser reaches no other route. Stripe signs the exact bytes it sends, so its webhook
 * reads JSON raw (a Buffer, not parsed); Epay may post a form, which only its notify accepts.
 */
export async function registerPaymentRoutes(api: FastifyInstance, { ctx }: RouteDeps): Promise<void> {
  await api.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: webhookBodyLimit }, (_request, body, done) =>
      done(null, body),
    );
    registerStripeWebhook(scope, ctx);
  });
  await api.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: epayBodyLimit },
      (_request, body, done) => done(null, formFields(body as string)),
    );
    registerEpayNotify(scope, ctx);
  });
}
