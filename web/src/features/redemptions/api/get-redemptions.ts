import type { Page, Redemption } from '@modelgate/shared';
import { http } from '../../../lib/http';

/** GET /api/redemption/ (or /api/redemption/search with a keyword): one page of live codes, newest first. */
export function fetchRedemptions(keyword: string, page: number, pageSize: number): Promise<Page<Redemption>> {
  const query = { p: page, page_size: pageSize };
  return keyword.trim() !== ''
    ? http.get<Page<Redemption>>('/api/redemption/search', { query: { ...query, keyword: keyword.trim() } })
    : http.get<Page<Redemption>>('/api/redemption/', { query });
}
