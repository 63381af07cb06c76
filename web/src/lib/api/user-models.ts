import { useQuery } from '@tanstack/react-query';
import { http } from '../http';

export const userModelsKey = ['user-models'] as const;

/** GET /api/user/models: model names the caller's group can use. */
export const fetchUserModels = () => http.get<string[]>('/api/user/models');

export const useUserModels = () => useQuery({ queryKey: userModelsKey, queryFn: fetchUserModels, staleTime: 60_000 });
