import { defaultQuotaPerUnit } from '@modelgate/shared';
import dayjs from 'dayjs';
import type { PlatformStatus } from './status';

export const quotaPerUnitOf = (status: PlatformStatus | null): number => status?.quota_per_unit || defaultQuotaPerUnit;

/** Decimals for an amount below a cent: three significant digits, so $0.000256 is not "$0.00". */
function smallAmountDecimals(amount: number): number {
  return Math.min(10, Math.ceil(-Math.log10(Math.abs(amount))) + 2);
}

/** Fixed decimals without trailing zeros beyond `minDecimals` (0.000010 → 0.00001 with at least 2). */
function trimDecimals(text: string, minDecimals: number): string {
  const [whole, fraction = ''] = text.split('.');
  let kept = fraction;
  while (kept.length > minDecimals && kept.endsWith('0')) kept = kept.slice(0, -1);
  return kept ? `${whole}.${kept}` : whole!;
}

/**
 * Quota shown as currency when display_in_currency is on, else as a raw number. `digits` decimals;
 * an amount below a cent (but not zero) keeps enough decimals to read its three significant digits.
 */
export function renderQuota(quota: number, status: PlatformStatus | null, digits = 2): string {
  const perUnit = quotaPerUnitOf(status);
  if (!(status?.display_in_currency ?? true)) return String(quota);
  const amount = quota / perUnit;
  const isBelowDigits = amount !== 0 && Math.abs(amount) < 10 ** -digits;
  if (!isBelowDigits) return `$${amount.toFixed(digits)}`;
  const decimals = Math.max(digits, smallAmountDecimals(amount));
  return `$${trimDecimals(amount.toFixed(decimals), digits)}`;
}

/** The one date and time format of the console (the token expiry field's format too). */
export const dateTimeFormat = 'YYYY-MM-DD HH:mm:ss';

/** Epoch seconds as `dateTimeFormat` in local time; '' for no time (0, negative, missing). */
export function formatDateTime(seconds: number | null | undefined): string {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? dayjs.unix(seconds).format(dateTimeFormat) : '';
}
