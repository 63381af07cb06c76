import { subscriptionMessages } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { blankPlan, planPayloadOf } from './plan-form';

describe('the plan editor payload', () => {
  it('passes a plan the API takes, with its defaults', () => {
    expect(planPayloadOf({ ...blankPlan, name: 'Pro', description: null }, null)).toEqual({ payload: { ...blankPlan, name: 'Pro' } });
  });

  it('refuses what the API refuses, by the console message of the shared one', () => {
    expect(planPayloadOf({ ...blankPlan, name: '  ' }, null)).toEqual({
      problem: { key: 'nameRequired', message: subscriptionMessages.nameRequired },
    });
    expect(planPayloadOf({ ...blankPlan, name: 'Pro', quota: 0 }, 3)).toEqual({
      problem: { key: 'quotaRequired', message: subscriptionMessages.quotaInvalid },
    });
    expect(planPayloadOf({ ...blankPlan, name: 'Pro', price: null }, null)).toEqual({
      problem: { key: 'priceInvalid', message: subscriptionMessages.priceInvalid },
    });
    expect(planPayloadOf({ ...blankPlan, name: 'Pro', period_count: 400 }, null)).toEqual({
      problem: { key: 'periodCountInvalid', message: subscriptionMessages.periodCountInvalid },
    });
  });
});
