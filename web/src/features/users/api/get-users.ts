import type { AdminUser, Page } from '@modelgate/shared';
import { http } from '../../../lib/http';
import type { UserFilters } from './keys';

/** GET /api/user/ (or /api/user/search with a keyword or group): one page of users. */
export function fetchUsers(filters: UserFilters, page: number, pageSize: number): Promise<Page<AdminUser>> {
  const isSearch = filters.keyword.trim() !== '' || filters.group !== '';
  const query = { p: page, page_size: pageSize };
  return isSearch
    ? http.get<Page<AdminUser>>('/api/user/search', { query: { ...query, keyword: filters.keyword.trim(), group: filters.group } })
    : http.get<Page<AdminUser>>('/api/user/', { query });
}

/** A user the admin list greys out: cancelled (soft-deleted). */
export const isCancelled = (user: Pick<AdminUser, 'deleted_at'>): boolean => user.deleted_at !== null;
