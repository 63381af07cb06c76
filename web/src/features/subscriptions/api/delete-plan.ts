import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { subscriptionKeys } from './keys';

/** DELETE /api/subscription/admin/plan/:id: only a plan nobody bought or was granted. */
export const deletePlan = (id: number) => http.delete<null>(`/api/subscription/admin/plan/${id}`);

export function useDeletePlan() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: deletePlan, onSettled: () => queryClient.invalidateQueries({ queryKey: subscriptionKeys.adminPlans }) });
}
