import Stripe from 'stripe';
import type { AppContext } from '../../context.js';
import { invalidInput } from '../../lib/errors.js';
import { completeStripeTopUp, expireStripeTopUp, type CheckoutSessionFields } from '../topup/complete-stripe-top-up.js';
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
      await completeStripeTopUp(ctx, object as unknown as CheckoutSessionFields);
      break;
    }
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed': {
      await expireStripeTopUp(ctx, object as unknown as CheckoutSessionFields);
      break;
    }
    default:
      log.info({ type: event.type, id: event.id }, 'stripe event ignored');
  }
  return 'success';
}
