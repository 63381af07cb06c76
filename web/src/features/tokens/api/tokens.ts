import { useQuery } from '@tanstack/react-query';
import { http, type Page } from '../../../lib/http';

/** Token fields as the API returns them; the key is stored without the sk- prefix. */
export interface Token {
  id: number;
  name: string;
  key: string;
  status: number;
  remain_quota: number;
  used_quota: number;
  unlimited_quota: number | boolean;
  expired_time: number;
  model_limits_enabled: number | boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
  max_concurrency?: number;
  /** 1: an `auto` token's failover goes on into the next auto group. */
  cross_group_retry?: number | boolean;
  /** Seconds identical requests are answered from the response cache (0: the group's setting). */
  response_cache_ttl?: number;
  created_time: number;
  accessed_time?: number;
}

export interface TokenFilters {
  keyword: string;
  token: string;
}

export interface TokenPayload {
  name: string;
  remain_quota: number;
  unlimited_quota: boolean;
  expired_time: number;
  model_limits_enabled: boolean;
  model_limits: string[];
  allow_ips: string;
  group: string;
  max_concurrency: number;
  cross_group_retry: boolean;
  response_cache_ttl: number;
  count?: number;
}

export const tokensQueryKey = ['tokens'] as const;
export const tokenListKey = (filters: TokenFilters) => [...tokensQueryKey, 'list', filters] as const;

export function fetchTokens(filters: TokenFilters, page: number, pageSize: number): Promise<Page<Token>> {
  const isSearch = filters.keyword.trim() !== '' || filters.token.trim() !== '';
  const query = { p: page, size: pageSize };
  return isSearch
    ? http.get<Page<Token>>('/api/token/search', { query: { ...query, keyword: filters.keyword.trim(), token: filters.token.trim() } })
    : http.get<Page<Token>>('/api/token/', { query });
}

export const fetchToken = (id: number) => http.get<Token>(`/api/token/${id}`);
export const useToken = (id: number | null) => useQuery({ queryKey: [...tokensQueryKey, 'one', id], queryFn: () => fetchToken(id!), enabled: id !== null, gcTime: 0 });

export const createToken = (payload: TokenPayload) => http.post<unknown>('/api/token/', payload);
export const updateToken = (payload: TokenPayload & { id: number }) => http.put<unknown>('/api/token/', payload);
export const setTokenStatus = (id: number, status: 1 | 2) => http.put<unknown>('/api/token/', { id, status }, { query: { status_only: true } });
export const deleteToken = (id: number) => http.delete<null>(`/api/token/${id}/`);

export interface GroupInfo {
  desc: string;
  /** A number, or for `auto` the word 自动 (its ratio is the group each call uses). */
  ratio: number | string;
}
export const useSelfGroups = () =>
  useQuery({ queryKey: ['self-groups'], queryFn: () => http.get<Record<string, GroupInfo>>('/api/user/self/groups'), staleTime: 60_000 });
export const useUserModels = () => useQuery({ queryKey: ['user-models'], queryFn: () => http.get<string[]>('/api/user/models'), staleTime: 60_000 });
