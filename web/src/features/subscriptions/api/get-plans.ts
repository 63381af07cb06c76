import type { Plan } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** GET /api/subscription/plans: the enabled plans. */
export const fetchPlans = () => http.get<Plan[]>('/api/subscription/plans');

export const usePlans = () => useQuery({ queryKey: subscriptionKeys.plans, queryFn: fetchPlans });
