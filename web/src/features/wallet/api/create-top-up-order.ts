import type { EpayForm, PaymentMethod } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/user/pay: the signed form of a pending Epay order. */
export const startPayment = ({ amount, method }: { amount: number; method: PaymentMethod }) =>
  http.post<EpayForm>('/api/user/pay', { amount, top_up_code: '', payment_method: method });

/** Nothing refreshes: the buyer leaves for the gateway's page. */
export const useStartPayment = () => useMutation({ mutationFn: startPayment });

/** Posts the payment gateway's form fields from a hidden form, as the gateway expects. */
export function submitPayForm({ url, data }: EpayForm): void {
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
