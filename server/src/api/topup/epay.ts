import { createHash } from 'node:crypto';
import type { PaymentMethod } from '@modelgate/shared';
import { safeEqual } from '../../lib/crypto.js';
import { normalizeAddress, serverAddressOf } from '../../lib/server-address.js';
import type { OptionStore } from '../../options/store.js';

/** Epay `type` per wallet payment method. */
const epayTypes: Record<PaymentMethod, string> = { zfb: 'alipay', wx: 'wxpay' };
export const epayTypeOf = (method: PaymentMethod): string => epayTypes[method];

export interface EpaySettings {
  payAddress: string;
  pid: string;
  key: string;
  /** Where the payment gateway sends the buyer back (ServerAddress, normalized); null while unset. */
  serverAddress: string | null;
  /** Where the payment gateway calls back: CustomCallbackAddress, else ServerAddress; null while both are unset. */
  callbackAddress: string | null;
}

/** Online top-up is on only when PayAddress, EpayId and EpayKey are all set. */
export function epaySettingsOf(options: OptionStore): EpaySettings | null {
  const payAddress = options.get('PayAddress').trim().replace(/\/+$/, '');
  const pid = options.get('EpayId').trim();
  const key = options.get('EpayKey').trim();
  if (!payAddress || !pid || !key) return null;
  const serverAddress = serverAddressOf(options);
  const callbackAddress = normalizeAddress(options.get('CustomCallbackAddress')) ?? serverAddress;
  return { payAddress, pid, key, serverAddress, callbackAddress };
}

/**
 * The Epay signature: fields other than sign and sign_type with a non-empty value, sorted by name,
 * joined as k=v&k=v, the merchant key appended, MD5 in lowercase hex.
 */
export function epaySign(fields: Record<string, string>, key: string): string {
  const text = Object.keys(fields)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && fields[name] !== '')
    .sort()
    .map((name) => `${name}=${fields[name]}`)
    .join('&');
  return createHash('md5')
    .update(text + key, 'utf8')
    .digest('hex');
}

export function isEpaySignValid(fields: Record<string, string>, key: string): boolean {
  const sign = fields.sign;
  return typeof sign === 'string' && sign !== '' && safeEqual(sign.toLowerCase(), epaySign(fields, key));
}
