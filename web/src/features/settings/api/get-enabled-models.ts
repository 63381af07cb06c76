import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { settingsKeys } from './keys';

/** GET /api/channel/models_enabled: model names some enabled channel serves. */
export const fetchEnabledModels = () => http.get<string[]>('/api/channel/models_enabled');

/** Read on every visit (staleTime 0): a channel saved a moment ago sends the admin here to price its models. */
export const useEnabledModels = () => useQuery({ queryKey: settingsKeys.enabledModels, queryFn: fetchEnabledModels, staleTime: 0 });
