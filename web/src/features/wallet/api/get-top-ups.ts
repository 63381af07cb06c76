import type { Page, TopUp } from '@modelgate/shared';
import { http } from '../../../lib/http';

/** GET /api/user/topup/self: one page of the caller's orders, newest first. */
export const fetchTopUps = (page: number, pageSize: number) =>
  http.get<Page<TopUp>>(`/api/user/topup/self?p=${page}&page_size=${pageSize}`);
