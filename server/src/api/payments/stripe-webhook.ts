import Stripe from 'stripe';
import type { AppContext } from '../../context.js';
import { invalidInput } from '../../lib/errors.js';
import { completeStripeTopUp, expireStripeTopUp, type CheckoutSessionFields } from '../topup/complete-stripe-top-up.js';
import { completeSubscriptionCheckout, expireSubscriptionOrder } from '../subscriptions/complete-subscription-checkout.js';
import { renewStripeSubscription, syncStripeSubscription } from '../subscriptions/stripe-subscription-events.js';
import { cardPaymentOffMessage, stripeSettingsOf } from './stripe.js';

/** Seconds a signed event stays acceptable after Stripe signed it (the SDK's default). */
export const webhookToleranceSeconds = 300;
export const missingSignatureMessage = '缺少 Stripe-Signature 签名';
export const badSignatureMessage = 'Stripe 签名无效或已过期';

type Log = { warn(object: object, message: string): void; info(object: object, message: string): void };

/**
 * POST /api/stripe/webhook: the raw body is verified against `Stripe-Signature` with
 * StripeWebhookSecret (`stripe.webhooks.constructEvent`, 300 s tolerance), then dispatched. A
 * forged, stale or unsigned delivery is a 400 and changes nothing; an event for a session this
 * gateway did not create a 404. Every handler is idempotent, so Stripe's retries and concurrent
 * duplicate deliveries (to any instance) take effect once. Event types not listed are acknowledged.
 */
export async function handleStripeWebhook(ctx: AppContext, raw: Buffer, signature: string | undefined, log: Log): Promise<string> {
  const settings = stripeSettingsOf(ctx.options);
  if (!settings) throw invalidInput(cardPaymentOffMessage);
  if (!signature) throw invalidInput(missingSignatureMessage);
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(raw, signature, settings.webhookSecret, webhookToleranceSeconds);
  } catch {
    throw invalidInput(badSignatureMessage);
  }
  const object = event.data?.object as unknown as Record<string, unknown> | undefined;
  if (typeof object !== 'object' || object === null || typeof object.id !== 'string') throw invalidInput('Stripe 事件缺少数据对象');
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = object as unknown as CheckoutSessionFields & { mode?: string; subscription?: unknown };
      if (session.mode === 'subscription') await completeSubscriptionCheckout(ctx, session, log);
      else await completeStripeTopUp(ctx, session);
      break;
    }
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed': {
      const session = object as unknown as CheckoutSessionFields & { mode?: string };
      if (session.mode === 'subscription') await expireSubscriptionOrder(ctx, session);
      else await expireStripeTopUp(ctx, session);
      break;
    }
    case 'invoice.paid':
      await renewStripeSubscription(ctx, object);
      break;
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      await syncStripeSubscription(ctx, object, event.type === 'customer.subscription.deleted');
      break;
    default:
      log.info({ type: event.type, id: event.id }, 'stripe event ignored');
  }
  return 'success';
}
