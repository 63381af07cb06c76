import { redemptionMessages } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { newRedemptionForm, redemptionPayloadOf } from './redemption-form';

const dollars = (quota: number) => `$${(quota / 500000).toFixed(2)}`;

describe('the redemption form payload', () => {
  it('names a blank name by the formatted quota', () => {
    expect(redemptionPayloadOf({ ...newRedemptionForm, quota: '250000', count: 3 }, dollars)).toEqual({
      payload: { name: '$0.50', quota: 250000, count: 3 },
    });
  });

  it('refuses what the API refuses, by the keys of the shared messages', () => {
    expect(redemptionPayloadOf({ ...newRedemptionForm, quota: 0 }, dollars)).toEqual({
      problem: { key: 'quotaInvalid', message: redemptionMessages.quotaInvalid },
    });
    expect(redemptionPayloadOf({ ...newRedemptionForm, quota: '' }, dollars, false)).toEqual({
      problem: { key: 'quotaInvalid', message: redemptionMessages.quotaInvalid },
    });
    expect(redemptionPayloadOf({ ...newRedemptionForm, count: 101 }, dollars)).toEqual({
      problem: { key: 'countInvalid', message: redemptionMessages.countInvalid },
    });
    expect(redemptionPayloadOf({ ...newRedemptionForm, name: 'x'.repeat(21) }, dollars, false)).toEqual({
      problem: { key: 'nameTooLong', message: redemptionMessages.nameTooLong },
    });
  });
});
