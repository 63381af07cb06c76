import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { baseStatus, fakeServer, fail, ok, regularUser, renderRoute, type FakeCall } from '../../../test/render-route';

function walletServer(status: Record<string, unknown>, extra: Record<string, (call: FakeCall) => unknown> = {}) {
  let quota = 500000;
  return fakeServer({
    'GET /api/status': () => ok({ ...baseStatus, ...status }),
    'GET /api/user/self': () => ok({ id: 2, quota, used_quota: 0, request_count: 3 }),
    'POST /api/user/topup': (call) => {
      if ((call.body as { key: string }).key !== 'GOOD') return fail('无效的兑换码');
      quota += 100000;
      return ok(100000);
    },
    'POST /api/user/amount': () => ok('7.30'),
    'GET /api/user/topup/self': () => ok({ items: [], page: 1, page_size: 10, total: 0 }),
    ...extra,
  });
}

describe('wallet', { timeout: 240_000 }, () => {
  it('redeems a code once and the balance rises', async () => {
    const { calls } = walletServer({});
    await renderRoute('/topup', { user: regularUser });
    expect(await screen.findByText('$1.00')).toBeTruthy();
    fireEvent.click(screen.getByText(/^兑\s*换$/));
    expect(await screen.findByText('请输入兑换码！')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('兑换码'), { target: { value: 'BAD' } });
    fireEvent.click(screen.getByText(/^兑\s*换$/));
    expect(await screen.findByText('无效的兑换码')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('兑换码'), { target: { value: 'GOOD' } });
    fireEvent.click(screen.getByText(/^兑\s*换$/));
    expect(await screen.findByText('兑换成功！')).toBeTruthy();
    expect(await screen.findByText('$1.20')).toBeTruthy();
    expect(calls.filter((call) => call.path === '/api/user/topup').map((call) => call.body)).toEqual([{ key: 'BAD' }, { key: 'GOOD' }]);
  });

  it('shows an amount used below a cent with its digits, not $0.00', async () => {
    walletServer({}, { 'GET /api/user/self': () => ok({ id: 2, quota: 499872, used_quota: 128, request_count: 1 }) });
    await renderRoute('/topup', { user: regularUser });
    expect(await screen.findByText('$0.000256')).toBeTruthy();
    expect(screen.getByText('$1.00')).toBeTruthy();
  });

  it('says so when no top-up link is set and when online top-up is off', async () => {
    walletServer({ top_up_link: '', enable_online_topup: false });
    await renderRoute('/topup', { user: regularUser });
    await screen.findByText('$1.00');
    fireEvent.click(screen.getByText(/^获取兑换码$/));
    expect(await screen.findByText('超级管理员未设置充值链接！')).toBeTruthy();
    fireEvent.click(screen.getByText(/^支付宝$/));
    expect(await screen.findByText('管理员未开启在线充值！')).toBeTruthy();
  });

  it('never opens a top-up link that is not http(s): a javascript: link would run in the console', async () => {
    walletServer({ top_up_link: 'javascript:alert(document.cookie)', enable_online_topup: false });
    const open = vi.fn();
    vi.stubGlobal('open', open);
    await renderRoute('/topup', { user: regularUser });
    await screen.findByText('$1.00');
    fireEvent.click(screen.getByText(/^获取兑换码$/));
    expect(await screen.findByText('超级管理员未设置充值链接！')).toBeTruthy();
    expect(open).not.toHaveBeenCalled();
  });

  it('opens the top-up link, enforces the minimum, raises input below 1, and posts the payment form', async () => {
    const { calls } = walletServer(
      { top_up_link: 'https://shop.example.com', enable_online_topup: true, min_topup: 5 },
      { 'POST /api/user/pay': () => ok({ url: 'https://pay.example.com/submit.php', data: { out_trade_no: 'T1', sign: 'abc' } }) },
    );
    const open = vi.fn();
    vi.stubGlobal('open', open);
    const submitted: HTMLFormElement[] = [];
    vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
      submitted.push(this.cloneNode(true) as HTMLFormElement);
    });
    await renderRoute('/topup', { user: regularUser });
    await screen.findByText('$1.00');
    fireEvent.click(screen.getByText(/^获取兑换码$/));
    expect(open).toHaveBeenCalledWith('https://shop.example.com', '_blank', 'noopener');
    const amount = screen.getByLabelText('充值数量') as HTMLInputElement;
    await waitFor(() => expect(amount.value).toBe('5'));
    fireEvent.change(amount, { target: { value: '-3' } });
    await waitFor(() => expect(amount.value).toBe('1'));
    fireEvent.click(screen.getByText(/^微\s*信$/));
    expect(await screen.findByText('充值数量不能小于 5')).toBeTruthy();
    fireEvent.change(amount, { target: { value: '10' } });
    expect(await screen.findByText('实付金额：7.30')).toBeTruthy();
    fireEvent.click(screen.getByText(/^微\s*信$/));
    await waitFor(() => expect(submitted).toHaveLength(1));
    expect(calls.find((call) => call.path === '/api/user/pay')?.body).toEqual({ amount: 10, top_up_code: '', payment_method: 'wx' });
    expect(submitted[0]!.action).toBe('https://pay.example.com/submit.php');
    expect((submitted[0]!.querySelector('input[name="sign"]') as HTMLInputElement).value).toBe('abc');
  });

  it('offers the card when Stripe is configured, hides the unconfigured Epay methods, and lists records with gateway and state', async () => {
    const { calls } = walletServer(
      { enable_online_topup: false, enable_stripe_topup: true, stripe_min_topup: 2, stripe_currency: 'eur' },
      {
        'POST /api/user/stripe/amount': (call) => ok(((call.body as { amount: number }).amount * 8).toFixed(2)),
        'POST /api/user/stripe/pay': () => ok({ pay_link: 'https://checkout.example.com/pay/cs_1' }),
        'GET /api/user/topup/self': () =>
          ok({
            items: [
              {
                id: 2,
                amount: 10,
                money: 80,
                trade_no: 'STRIPE2NOabc',
                payment_method: 'stripe',
                gateway: 'stripe',
                status: 'success',
                create_time: 1_700_000_000,
                complete_time: 1_700_000_100,
              },
              {
                id: 1,
                amount: 5,
                money: 36.5,
                trade_no: 'USR2NOxyz',
                payment_method: 'zfb',
                gateway: 'epay',
                status: 'pending',
                create_time: 1_700_000_000,
                complete_time: 0,
              },
            ],
            page: 1,
            page_size: 10,
            total: 2,
          }),
      },
    );
    const open = vi.fn();
    vi.stubGlobal('open', open);
    await renderRoute('/topup', { user: regularUser });
    await screen.findByText('$1.00');
    expect(screen.queryByRole('button', { name: /支付宝/ })).toBeNull();
    const amount = screen.getByLabelText('银行卡充值数量') as HTMLInputElement;
    await waitFor(() => expect(amount.value).toBe('2'));
    expect(await screen.findByText('实付金额：16.00 EUR')).toBeTruthy();
    fireEvent.change(amount, { target: { value: '5' } });
    expect(await screen.findByText('实付金额：40.00 EUR')).toBeTruthy();
    fireEvent.click(screen.getAllByText(/^银行卡支付$/).find((node) => node.closest('button'))!);
    await waitFor(() => expect(open).toHaveBeenCalledWith('https://checkout.example.com/pay/cs_1', '_self'));
    expect(calls.find((call) => call.path === '/api/user/stripe/pay')?.body).toEqual({ amount: 5 });
    expect(await screen.findByText('STRIPE2NOabc')).toBeTruthy();
    expect(screen.getByText('已支付')).toBeTruthy();
    expect(screen.getByText('待支付')).toBeTruthy();
    expect(screen.getByText('易支付')).toBeTruthy();
  });

  it('says so when the buyer comes back from the payment page', async () => {
    walletServer({ enable_stripe_topup: true });
    await renderRoute('/topup?pay=success', { user: regularUser });
    expect(await screen.findByText('已收到付款，支付确认后余额即会增加。')).toBeTruthy();
  });
});
