import { useQuery } from '@tanstack/react-query';
import { http, type Page } from '../../../lib/http';

/** User fields as the admin API returns them. */
export interface User {
  id: number;
  username: string;
  display_name: string;
  email?: string;
  github_id?: string;
  oidc_id?: string;
  wechat_id?: string;
  telegram_id?: string;
  linux_do_id?: string;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  role: number;
  status: number;
  inviter_id?: number;
  aff_count?: number;
  aff_quota?: number;
  aff_history_quota?: number;
  DeletedAt?: string | null;
  deleted_at?: string | number | null;
  /** Second factors (GET /api/user/:id only). */
  two_fa_enabled?: boolean;
  passkey_count?: number;
}

export type ManageAction = 'promote' | 'demote' | 'disable' | 'enable' | 'delete';

export interface UserFilters {
  keyword: string;
  group: string;
}

export const usersQueryKey = ['users'] as const;
export const usersListKey = (filters: UserFilters) => [...usersQueryKey, 'list', filters] as const;
export const userQueryKey = (id: number) => [...usersQueryKey, 'one', id] as const;

export function fetchUsers(filters: UserFilters, page: number, pageSize: number): Promise<Page<User>> {
  const isSearch = filters.keyword.trim() !== '' || filters.group !== '';
  const query = { p: page, page_size: pageSize };
  return isSearch
    ? http.get<Page<User>>('/api/user/search', { query: { ...query, keyword: filters.keyword.trim(), group: filters.group } })
    : http.get<Page<User>>('/api/user/', { query });
}

export const fetchUser = (id: number) => http.get<User>(`/api/user/${id}`);
export const useUser = (id: number | null) => useQuery({ queryKey: userQueryKey(id ?? 0), queryFn: () => fetchUser(id!), enabled: id !== null });

export const fetchGroups = () => http.get<string[]>('/api/group/');
export const useGroups = () => useQuery({ queryKey: ['groups'], queryFn: fetchGroups, staleTime: 60_000 });

export interface CreateUserPayload {
  username: string;
  display_name?: string;
  password: string;
}

export const createUser = (payload: CreateUserPayload) => http.post<unknown>('/api/user/', payload);

export type UpdateUserPayload = Partial<Pick<User, 'username' | 'display_name' | 'group' | 'quota'>> & { id: number; password?: string };

export const updateUser = (payload: UpdateUserPayload) => http.put<unknown>('/api/user/', payload);

export const manageUser = (id: number, action: ManageAction) => http.post<{ status: number; role: number }>('/api/user/manage', { id, action });

/** An admin's reset of a user's second factors (a lost device): TOTP with its recovery codes, or every passkey. */
export const resetUserTotp = (id: number) => http.delete<null>(`/api/user/${id}/2fa`);
export const resetUserPasskeys = (id: number) => http.delete<null>(`/api/user/${id}/passkey`);

export const isCancelled = (user: User): boolean => !!user.DeletedAt || !!user.deleted_at;
