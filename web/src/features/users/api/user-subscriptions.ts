import type { GrantPlanPayload, Plan, SubscriptionsOfUser, UserSubscription } from '@modelgate/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** Query keys of a user's subscriptions in the user editor. */
export const userSubscriptionKeys = {
  ofUser: (userId: number) => ['users', 'subscriptions', userId] as const,
  grantablePlans: ['users', 'grantable-plans'] as const,
};

/** GET /api/subscription/admin/user/:id: a user's subscriptions and funding preference, for admins. */
export const fetchUserSubscriptions = (userId: number) => http.get<SubscriptionsOfUser>(`/api/subscription/admin/user/${userId}`);

export const useUserSubscriptions = (userId: number) =>
  useQuery({ queryKey: userSubscriptionKeys.ofUser(userId), queryFn: () => fetchUserSubscriptions(userId) });

/** GET /api/subscription/admin/plans: every plan (a disabled one can still be granted). */
export const fetchGrantablePlans = () => http.get<Plan[]>('/api/subscription/admin/plans');

export const useGrantablePlans = () => useQuery({ queryKey: userSubscriptionKeys.grantablePlans, queryFn: fetchGrantablePlans });

/** POST /api/subscription/admin/grant: the plan for some periods, unpaid. */
export const grantUserPlan = (input: GrantPlanPayload) => http.post<UserSubscription>('/api/subscription/admin/grant', input);

export function useGrantUserPlan(userId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: grantUserPlan,
    onSettled: () => queryClient.invalidateQueries({ queryKey: userSubscriptionKeys.ofUser(userId) }),
  });
}

/** POST /api/subscription/admin/revoke: ends the subscription now. */
export const revokeUserSubscription = (id: number) => http.post<null>('/api/subscription/admin/revoke', { id });

export function useRevokeUserSubscription(userId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeUserSubscription,
    onSettled: () => queryClient.invalidateQueries({ queryKey: userSubscriptionKeys.ofUser(userId) }),
  });
}
