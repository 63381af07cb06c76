import type { Plan, UpdatePlanPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** PUT /api/subscription/admin/plan: new terms apply to purchases and grants from now on. */
export const updatePlan = (plan: UpdatePlanPayload) => http.put<Plan>('/api/subscription/admin/plan', plan);

export function useUpdatePlan() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: updatePlan, onSettled: () => queryClient.invalidateQueries({ queryKey: subscriptionKeys.adminPlans }) });
}
