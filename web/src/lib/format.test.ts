import { describe, expect, it } from 'vitest';
import { dateTimeFormat, formatDateTime, renderQuota } from './format';
import type { PlatformStatus } from './status';

const dollars = { quota_per_unit: 500000, display_in_currency: true } as PlatformStatus;

describe('renderQuota', () => {
  it('shows cents and more as two decimals', () => {
    expect(renderQuota(0, dollars)).toBe('$0.00');
    expect(renderQuota(500000, dollars)).toBe('$1.00');
    expect(renderQuota(5000, dollars)).toBe('$0.01');
    expect(renderQuota(1_234_567, dollars)).toBe('$2.47');
  });

  it('keeps enough digits for amounts below a cent', () => {
    expect(renderQuota(128, dollars)).toBe('$0.000256');
    expect(renderQuota(1, dollars)).toBe('$0.000002');
    expect(renderQuota(5, dollars)).toBe('$0.00001');
    expect(renderQuota(2500, dollars)).toBe('$0.005');
    expect(renderQuota(4995, dollars)).toBe('$0.00999');
    expect(renderQuota(-128, dollars)).toBe('$-0.000256');
  });

  it('follows another quota per unit', () => {
    expect(renderQuota(256, { ...dollars, quota_per_unit: 1_000_000 })).toBe('$0.000256');
    expect(renderQuota(3, { ...dollars, quota_per_unit: 100_000_000 })).toBe('$0.00000003');
  });

  it('honours an explicit number of decimals', () => {
    expect(renderQuota(128, dollars, 6)).toBe('$0.000256');
    expect(renderQuota(750000, dollars, 6)).toBe('$1.500000');
    expect(renderQuota(5_000_000, dollars, 0)).toBe('$10');
  });

  it('shows the raw number when currency display is off, and dollars without a status', () => {
    expect(renderQuota(128, { ...dollars, display_in_currency: false })).toBe('128');
    expect(renderQuota(128, null)).toBe('$0.000256');
  });
});

describe('formatDateTime', () => {
  it('writes local time as YYYY-MM-DD HH:mm:ss', () => {
    const seconds = new Date(2025, 0, 2, 3, 4, 5).getTime() / 1000;
    expect(formatDateTime(seconds)).toBe('2025-01-02 03:04:05');
    expect(formatDateTime(new Date(2024, 11, 31, 23, 59, 59).getTime() / 1000)).toBe('2024-12-31 23:59:59');
    expect(dateTimeFormat).toBe('YYYY-MM-DD HH:mm:ss');
  });

  it('answers empty for no time', () => {
    expect(formatDateTime(0)).toBe('');
    expect(formatDateTime(-1)).toBe('');
    expect(formatDateTime(undefined)).toBe('');
    expect(formatDateTime(null)).toBe('');
    expect(formatDateTime(Number.NaN)).toBe('');
  });
});
