import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { adminUser, fakeServer, ok, regularUser, renderRoute } from '../../../test/render-route';

const proPlan = {
  id: 3,
  name: 'Pro',
  description: 'GPT every month',
  price: 20,
  currency: 'eur',
  period_unit: 'month',
  period_count: 1,
  quota: 5_000_000,
  models: ['gpt-4o'],
  groups: [],
  enabled: true,
  sort_order: 0,
};
const staffPlan = { ...proPlan, id: 4, name: 'Staff', price: 0, period_unit: 'day', period_count: 7, models: [], description: '' };
const current = {
  id: 9,
  plan_name: 'Pro',
  source: 'stripe',
  status: 'active',
  period_quota: 5_000_000,
  remaining_quota: 1_250_000,
  models: ['gpt-4o'],
  groups: [],
  period_start: 1_700_000_000,
  period_end: 1_702_592_000,
  ends_at: 0,
  cancelled_at: 0,
  renews: true,
  is_funding: true,
};

describe('subscriptions', { timeout: 240_000 }, () => {
  it('shows the current subscription, cancels it, keeps the preference and sells plans by card', async () => {
    let own = { billing_preference: 'subscription_first', subscriptions: [current] };
    const { calls } = fakeServer({
      'GET /api/status': () => ok({ setup: true, quota_per_unit: 500000, display_in_currency: true, enable_stripe_topup: true }),
      'GET /api/subscription/self': () => ok(own),
      'GET /api/subscription/plans': () => ok([proPlan, staffPlan]),
      'POST /api/subscription/self/cancel': () => {
        own = { ...own, subscriptions: [{ ...current, renews: false, ends_at: current.period_end, cancelled_at: 1_700_100_000 }] };
        return ok(null);
      },
      'PUT /api/subscription/self/preference': (call) => {
        own = { ...own, billing_preference: (call.body as { billing_preference: string }).billing_preference };
        return ok(null);
      },
      'POST /api/subscription/stripe/pay': () => ok({ pay_link: 'https://checkout.example.com/pay/cs_sub' }),
    });
    const open = vi.fn();
    vi.stubGlobal('open', open);
    await renderRoute('/subscription', { user: regularUser });
    const card = await screen.findByTestId('subscription-9');
    expect(within(card).getByText('剩余 $2.50 / $10.00')).toBeTruthy();
    expect(within(card).getByText('自动续费')).toBeTruthy();
    fireEvent.click(within(card).getByText('取消续费'));
    fireEvent.click(await screen.findByRole('button', { name: /确\s*定|OK/ }));
    await waitFor(() => expect(calls.some((call) => call.path === '/api/subscription/self/cancel')).toBe(true));
    expect(calls.find((call) => call.path === '/api/subscription/self/cancel')?.body).toEqual({ id: 9 });
    expect(await within(await screen.findByTestId('subscription-9')).findByText('已取消')).toBeTruthy();

    fireEvent.mouseDown(screen.getByRole('combobox', { name: '扣费优先级' }));
    fireEvent.click(await screen.findByText('仅用钱包'));
    await waitFor(() =>
      expect(calls.find((call) => call.path === '/api/subscription/self/preference')?.body).toEqual({ billing_preference: 'wallet_only' }),
    );

    const pro = screen.getByTestId('plan-3');
    expect(within(pro).getByText('20.00 EUR / 月')).toBeTruthy();
    expect(within(screen.getByTestId('plan-4')).getByText('仅由管理员授予')).toBeTruthy();
    fireEvent.click(within(pro).getByText('银行卡订阅'));
    await waitFor(() => expect(open).toHaveBeenCalledWith('https://checkout.example.com/pay/cs_sub', '_self'));
    expect(calls.find((call) => call.path === '/api/subscription/stripe/pay')?.body).toEqual({ plan_id: 3 });
  });

  it('lets an admin create a plan and grant one', async () => {
    const plans = [proPlan];
    const { calls } = fakeServer({
      'GET /api/subscription/admin/plans': () => ok(plans),
      'POST /api/subscription/admin/plan': (call) => {
        plans.push({ ...proPlan, ...(call.body as object), id: 5 });
        return ok(plans.at(-1));
      },
      'POST /api/subscription/admin/grant': () => ok({}),
    });
    await renderRoute('/plans', { user: adminUser });
    expect(await screen.findByText('Pro')).toBeTruthy();
    fireEvent.click(screen.getByText('新建套餐'));
    fireEvent.change(await screen.findByLabelText('名称'), { target: { value: 'Team' } });
    fireEvent.change(screen.getByLabelText('每周期额度'), { target: { value: '2000000' } });
    fireEvent.click(screen.getByText(/^提\s*交$/));
    await waitFor(() =>
      expect(calls.find((call) => call.path === '/api/subscription/admin/plan')?.body).toMatchObject({
        name: 'Team',
        quota: 2_000_000,
        period_unit: 'month',
        period_count: 1,
        enabled: true,
      }),
    );
    expect(await screen.findByText('Team')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('用户 ID'), { target: { value: '2' } });
    fireEvent.mouseDown(screen.getByRole('combobox', { name: '套餐' }));
    fireEvent.click((await screen.findAllByText('Pro')).at(-1)!);
    fireEvent.click(screen.getByText(/^授\s*予$/));
    await waitFor(() =>
      expect(calls.find((call) => call.path === '/api/subscription/admin/grant')?.body).toEqual({ user_id: 2, plan_id: 3, periods: 1 }),
    );
  });
});
