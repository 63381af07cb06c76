import type { Plan, PlanPayload } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** POST /api/subscription/admin/plan. */
export const createPlan = (plan: PlanPayload) => http.post<Plan>('/api/subscription/admin/plan', plan);

export function useCreatePlan() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createPlan, onSettled: () => queryClient.invalidateQueries({ queryKey: subscriptionKeys.adminPlans }) });
}
