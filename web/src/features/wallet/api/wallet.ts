import { useQuery } from '@tanstack/react-query';
import type { PaymentMethod } from '@modelgate/shared';
import { http, type Page } from '../../../lib/http';

export interface SelfQuota {
  id: number;
  quota: number;
  used_quota: number;
  request_count: number;
}

export const selfQueryKey = ['wallet', 'self'] as const;
export const useSelf = () => useQuery({ queryKey: selfQueryKey, queryFn: () => http.get<SelfQuota>('/api/user/self') });

/** POST /api/user/topup: the quota gained. */
export const redeemCode = (key: string) => http.post<number>('/api/user/topup', { key });
/** POST /api/user/amount: the money to pay for `amount`. */
export const quoteAmount = (amount: number) => http.post<string>('/api/user/amount', { amount, top_up_code: '' }, { silent: true });

export interface PayForm {
  url: string;
  data: Record<string, string>;
}
export const startPayment = (amount: number, method: PaymentMethod) => http.post<PayForm>('/api/user/pay', { amount, top_up_code: '', payment_method: method });

/** Posts the payment gateway's form fields from a hidden form, as the gateway expects. */
export function submitPayForm({ url, data }: PayForm): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = url;
  form.style.display = 'none';
  for (const [name, value] of Object.entries(data)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = String(value);
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
  form.remove();
}

/** POST /api/user/stripe/amount: what `amount` costs by card, in the Stripe currency. */
export const quoteCardAmount = (amount: number) => http.post<string>('/api/user/stripe/amount', { amount }, { silent: true });
/** POST /api/user/stripe/pay: the Stripe Checkout page to go to. */
export const startCardPayment = (amount: number) => http.post<{ pay_link: string }>('/api/user/stripe/pay', { amount });

export interface TopUpRecord {
  id: number;
  amount: number;
  money: number;
  trade_no: string;
  payment_method: string;
  gateway: 'epay' | 'stripe';
  status: string;
  create_time: number;
  complete_time: number;
}

export const topUpRecordsQueryKey = ['wallet', 'topups'] as const;
/** GET /api/user/topup/self: the caller's orders, newest first. */
export const fetchTopUpRecords = (page: number, pageSize: number) =>
  http.get<Page<TopUpRecord>>(`/api/user/topup/self?p=${page}&page_size=${pageSize}`);
