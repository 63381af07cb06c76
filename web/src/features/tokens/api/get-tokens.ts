import type { Page, Token } from '@modelgate/shared';
import { http } from '../../../lib/http';
import type { TokenFilters } from './keys';

/** GET /api/token/ (or /api/token/search with a keyword or key): one page of the caller's tokens. */
export function fetchTokens(filters: TokenFilters, page: number, pageSize: number): Promise<Page<Token>> {
  const isSearch = filters.keyword.trim() !== '' || filters.token.trim() !== '';
  const query = { p: page, size: pageSize };
  return isSearch
    ? http.get<Page<Token>>('/api/token/search', { query: { ...query, keyword: filters.keyword.trim(), token: filters.token.trim() } })
    : http.get<Page<Token>>('/api/token/', { query });
}
