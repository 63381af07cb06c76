import { useQuery } from '@tanstack/react-query';
import type { FundingPreference } from '@modelgate/shared';
import { http } from '../../../lib/http';

/** A subscription as GET /api/subscription/admin/user/:id answers it (the fields the user editor shows). */
export interface AdminUserSubscription {
  id: number;
  plan_name: string;
  source: 'stripe' | 'admin';
  status: 'active' | 'expired';
  period_quota: number;
  remaining_quota: number;
  period_end: number;
  ends_at: number;
  cancelled_at: number;
  renews: boolean;
  is_funding: boolean;
}

export interface PlanOption {
  id: number;
  name: string;
  enabled: boolean;
}

export const userSubscriptionsKey = (userId: number) => ['users', 'subscriptions', userId] as const;

/** A user's subscriptions and funding preference, for admins. */
export const useUserSubscriptions = (userId: number) =>
  useQuery({
    queryKey: userSubscriptionsKey(userId),
    queryFn: () => http.get<{ billing_preference: FundingPreference; subscriptions: AdminUserSubscription[] }>(`/api/subscription/admin/user/${userId}`),
  });

/** Every plan (a disabled one can still be granted). */
export const useGrantablePlans = () => useQuery({ queryKey: ['users', 'grantable-plans'], queryFn: () => http.get<PlanOption[]>('/api/subscription/admin/plans') });

export const grantUserPlan = (input: { user_id: number; plan_id: number; periods: number }) => http.post<AdminUserSubscription>('/api/subscription/admin/grant', input);
export const revokeUserSubscription = (id: number) => http.post<null>('/api/subscription/admin/revoke', { id });
