import { useQuery } from '@tanstack/react-query';
import { http, type Page } from '../../../lib/http';

/** Redemption fields as the admin API returns them (key in full). */
export interface Redemption {
  id: number;
  name: string;
  key: string;
  status: number;
  quota: number;
  created_time: number;
  redeemed_time?: number;
  used_user_id: number;
  expired_time?: number;
}

export const redemptionsQueryKey = ['redemptions'] as const;
export const redemptionListKey = (keyword: string) => [...redemptionsQueryKey, 'list', keyword] as const;

export function fetchRedemptions(keyword: string, page: number, pageSize: number): Promise<Page<Redemption>> {
  const query = { p: page, page_size: pageSize };
  return keyword.trim() !== ''
    ? http.get<Page<Redemption>>('/api/redemption/search', { query: { ...query, keyword: keyword.trim() } })
    : http.get<Page<Redemption>>('/api/redemption/', { query });
}

export const useRedemption = (id: number | null) =>
  useQuery({ queryKey: [...redemptionsQueryKey, 'one', id], queryFn: () => http.get<Redemption>(`/api/redemption/${id}`), enabled: id !== null, gcTime: 0 });

/** POST /api/redemption/: the created codes, as strings. */
export async function createRedemptions(payload: { name: string; quota: number; count: number }): Promise<string[]> {
  return (await http.post<string[]>('/api/redemption/', payload)) ?? [];
}

export const updateRedemption = (payload: { id: number; name: string; quota: number }) => http.put<unknown>('/api/redemption/', payload);
export const setRedemptionStatus = (id: number, status: 1 | 2) => http.put<unknown>('/api/redemption/', { id, status }, { query: { status_only: true } });
export const deleteRedemption = (id: number) => http.delete<null>(`/api/redemption/${id}/`);
