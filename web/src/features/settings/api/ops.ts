import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/option/rest_model_ratio: restores ModelRatio, CompletionRatio, CacheRatio and ModelPrice. */
export const resetModelRatios = () => http.post<null>('/api/option/rest_model_ratio');

/** DELETE /api/log/?target_timestamp=: removes logs older than the time; answers the count. */
export const clearLogsBefore = (targetTimestamp: number) => http.delete<number>('/api/log/', { query: { target_timestamp: targetTimestamp } });

/** GET /api/channel/models_enabled: model names some enabled channel serves. */
/** Read on every visit (staleTime 0): a channel saved a moment ago sends the admin here to price its models. */
export const useEnabledModels = () =>
  useQuery({ queryKey: ['settings-ops', 'models-enabled'], queryFn: () => http.get<string[]>('/api/channel/models_enabled'), staleTime: 0 });
