import type { Plan } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** GET /api/subscription/admin/plans: every plan. */
export const fetchAdminPlans = () => http.get<Plan[]>('/api/subscription/admin/plans');

export const useAdminPlans = () => useQuery({ queryKey: subscriptionKeys.adminPlans, queryFn: fetchAdminPlans });
