import type { GrantPlanPayload, UserSubscription } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/subscription/admin/grant: a plan for some periods, unpaid. */
export const grantPlan = (input: GrantPlanPayload) => http.post<UserSubscription>('/api/subscription/admin/grant', input);

/** Nothing on the plans screen shows a user's subscriptions, so nothing refreshes. */
export const useGrantPlan = () => useMutation({ mutationFn: grantPlan });
