import type { PayLink } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/subscription/stripe/pay: the Stripe Checkout page that buys the plan. */
export const subscribeByCard = (planId: number) => http.post<PayLink>('/api/subscription/stripe/pay', { plan_id: planId });

/** Nothing refreshes: the buyer leaves for Stripe's page, and the subscription starts with its webhook. */
export const useSubscribeByCard = () => useMutation({ mutationFn: subscribeByCard });
