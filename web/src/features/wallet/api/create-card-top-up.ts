import type { PayLink } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/user/stripe/pay: the Stripe Checkout page to go to. */
export const startCardPayment = (amount: number) => http.post<PayLink>('/api/user/stripe/pay', { amount });

/** Nothing refreshes: the buyer leaves for Stripe's page, and the quota comes with its webhook. */
export const useStartCardPayment = () => useMutation({ mutationFn: startCardPayment });
