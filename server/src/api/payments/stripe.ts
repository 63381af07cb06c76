import { subscriptionMessages } from '@modelgate/shared';
import Stripe from 'stripe';
import type { Config } from '../../config.js';
import { AppError, invalidInput } from '../../lib/errors.js';
import { requireServerAddress } from '../../lib/server-address.js';
import type { OptionStore } from '../../options/store.js';

/**
 * Stripe through its official SDK: the settings (options `Stripe*`), one client per secret key
 * pointed at STRIPE_API_BASE_URL, money in the currency's smallest unit, and how a failed Stripe
 * call is answered (never with Stripe's own text).
 */
export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Money per 1 unit ($1 of quota) of a card top-up, before the group ratio. */
  unitPrice: number;
  minTopUp: number;
  /** ISO 4217, lowercase. */
  currency: string;
  allowPromotionCodes: boolean;
}

export const cardPaymentOffMessage = subscriptionMessages.cardPaymentOff;
export const noServerAddressForCardMessage = '管理员未设置服务器地址，无法发起银行卡支付';
export const stripeUnavailableMessage = '银行卡支付暂时不可用，请稍后再试';
export const stripeRefusedMessage = '支付平台拒绝了该订单，请检查金额或联系管理员';

/** Card payments are on when both the API secret key and the webhook signing secret are set. */
export function stripeSettingsOf(options: OptionStore): StripeSettings | null {
  const secretKey = options.get('StripeApiSecret').trim();
  const webhookSecret = options.get('StripeWebhookSecret').trim();
  if (!secretKey || !webhookSecret) return null;
  return {
    secretKey,
    webhookSecret,
    unitPrice: options.number('StripeUnitPrice'),
    minTopUp: options.number('StripeMinTopUp'),
    currency: options.get('StripeCurrency').trim().toLowerCase() || 'usd',
    allowPromotionCodes: options.bool('StripePromotionCodesEnabled'),
  };
}

export function requireStripe(options: OptionStore): StripeSettings & { serverAddress: string } {
  const settings = stripeSettingsOf(options);
  if (!settings) throw invalidInput(cardPaymentOffMessage);
  return { ...settings, serverAddress: requireServerAddress(options, noServerAddressForCardMessage) };
}

let cached: { key: string; client: Stripe } | null = null;

/** The Stripe client for this secret key, talking to STRIPE_API_BASE_URL (host, port and protocol). */
export function stripeClient(config: Pick<Config, 'stripeApiBaseUrl'>, secretKey: string): Stripe {
  const key = `${config.stripeApiBaseUrl}\n${secretKey}`;
  if (cached?.key === key) return cached.client;
  const base = new URL(config.stripeApiBaseUrl);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  const client = new Stripe(secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });
  cached = { key, client };
  return client;
}

/** Currencies Stripe counts in whole units, and those counted in thousandths (amounts must end in 0). */
const zeroDecimal = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);
const threeDecimal = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/** Money as Stripe's `unit_amount`: an integer in the currency's smallest unit. */
export function toMinorUnits(money: number, currency: string): number {
  if (zeroDecimal.has(currency)) return Math.round(money);
  if (threeDecimal.has(currency)) return Math.round(money * 100) * 10;
  return Math.round(money * 100);
}

/**
 * A failed Stripe call as the caller sees it: Stripe refusing the request (a too small amount, a
 * wrong currency, a revoked key) is a 400, Stripe unreachable or failing a 503. Stripe's own text
 * goes to the log only.
 */
export function stripeFailure(error: unknown, log: { warn(object: object, message: string): void }): AppError {
  const stripeError = error instanceof Stripe.errors.StripeError ? error : null;
  log.warn(
    {
      type: stripeError?.type ?? 'unknown',
      code: stripeError?.code,
      status: stripeError?.statusCode,
      stripeMessage: stripeError?.message ?? String(error),
    },
    'stripe request failed',
  );
  const isRefused =
    stripeError !== null &&
    (stripeError.type === 'StripeInvalidRequestError' ||
      stripeError.type === 'StripeCardError' ||
      stripeError.type === 'StripeAuthenticationError' ||
      stripeError.type === 'StripePermissionError');
  return isRefused ? invalidInput(stripeRefusedMessage) : new AppError('unavailable', stripeUnavailableMessage);
}
