import { useMutation, useQueryClient } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { settingsKeys } from './keys';

/** POST /api/option/rest_model_ratio: restores ModelRatio, CompletionRatio, CacheRatio, CacheCreationRatio and ModelPrice. */
export const resetModelRatios = () => http.post<null>('/api/option/rest_model_ratio');

export function useResetModelRatios() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: resetModelRatios, onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.options }) });
}
