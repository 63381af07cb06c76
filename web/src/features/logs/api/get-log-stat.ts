import type { LogStat } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { logKeys, logQueryOf, type LogFilters } from './keys';

/** GET /api/log/stat or /api/log/self/stat: quota, rpm, tpm for the same filters. */
export const fetchLogStat = (filters: LogFilters, isAdmin: boolean) =>
  http.get<LogStat>(isAdmin ? '/api/log/stat' : '/api/log/self/stat', { query: logQueryOf(filters, isAdmin) });

export const useLogStat = (filters: LogFilters, isAdmin: boolean) =>
  useQuery({ queryKey: logKeys.stat(isAdmin, filters), queryFn: () => fetchLogStat(filters, isAdmin) });
