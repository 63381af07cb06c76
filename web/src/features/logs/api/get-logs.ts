import type { LogEntry, Page } from '@modelgate/shared';
import { http } from '../../../lib/http';
import { logQueryOf, type LogFilters } from './keys';

export type { LogEntry };

/** GET /api/log/ (admin, every user, with the channel) or /api/log/self/ (one's own): one page. */
export const fetchLogs = (filters: LogFilters, isAdmin: boolean, page: number, pageSize: number) =>
  http.get<Page<LogEntry>>(isAdmin ? '/api/log/' : '/api/log/self/', {
    query: { ...logQueryOf(filters, isAdmin), p: page, page_size: pageSize },
  });
