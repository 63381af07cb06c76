import { useQuery } from '@tanstack/react-query';
import type { FundingPreference, PeriodUnit, PlanInput } from '@modelgate/shared';
import { http } from '../../../lib/http';

export interface Plan {
  id: number;
  name: string;
  description: string;
  price: number;
  currency: string;
  period_unit: PeriodUnit;
  period_count: number;
  quota: number;
  models: string[];
  groups: string[];
  enabled: boolean;
  sort_order: number;
}

export interface UserSubscription {
  id: number;
  plan_name: string;
  source: 'stripe' | 'admin';
  status: 'active' | 'expired';
  period_quota: number;
  remaining_quota: number;
  models: string[];
  groups: string[];
  period_start: number;
  period_end: number;
  ends_at: number;
  cancelled_at: number;
  renews: boolean;
  is_funding: boolean;
}

export interface OwnSubscriptions {
  billing_preference: FundingPreference;
  subscriptions: UserSubscription[];
}

export const ownSubscriptionsKey = ['subscriptions', 'self'] as const;
export const plansKey = ['subscriptions', 'plans'] as const;
export const adminPlansKey = ['subscriptions', 'admin-plans'] as const;

/** GET /api/subscription/self and /api/subscription/plans (enabled plans). */
export const useOwnSubscriptions = () => useQuery({ queryKey: ownSubscriptionsKey, queryFn: () => http.get<OwnSubscriptions>('/api/subscription/self') });
export const usePlans = () => useQuery({ queryKey: plansKey, queryFn: () => http.get<Plan[]>('/api/subscription/plans') });
export const useAdminPlans = () => useQuery({ queryKey: adminPlansKey, queryFn: () => http.get<Plan[]>('/api/subscription/admin/plans') });

export const subscribeByCard = (planId: number) => http.post<{ pay_link: string }>('/api/subscription/stripe/pay', { plan_id: planId });
export const cancelSubscription = (id: number) => http.post<null>('/api/subscription/self/cancel', { id });
export const setPreference = (preference: FundingPreference) => http.put<null>('/api/subscription/self/preference', { billing_preference: preference });

export const createPlan = (plan: PlanInput) => http.post<Plan>('/api/subscription/admin/plan', plan);
export const updatePlan = (plan: PlanInput & { id: number }) => http.put<Plan>('/api/subscription/admin/plan', plan);
export const deletePlan = (id: number) => http.delete<null>(`/api/subscription/admin/plan/${id}`);
export const grantPlan = (input: { user_id: number; plan_id: number; periods: number }) => http.post<UserSubscription>('/api/subscription/admin/grant', input);
