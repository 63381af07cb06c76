import type { QuotaData } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';
import { dashboardKeys, type DataQuery } from './keys';

/** The buckets and, beside them, how fresh they are (last aggregation in epoch seconds, 0 = not yet, and its interval). */
export interface DashboardData {
  buckets: QuotaData[];
  aggregated_at?: number;
  aggregation_interval_minutes?: number;
}

/** GET /api/data/ (admin, optional username) or /api/data/self. */
export async function fetchQuotaData(query: DataQuery, isAdmin: boolean): Promise<DashboardData> {
  const { data, aggregated_at, aggregation_interval_minutes } = await requestEnvelope<QuotaData[], Omit<DashboardData, 'buckets'>>(
    isAdmin ? '/api/data/' : '/api/data/self',
    {
      query: {
        start_timestamp: query.start_timestamp || undefined,
        end_timestamp: query.end_timestamp || undefined,
        username: isAdmin ? query.username || undefined : undefined,
      },
    },
  );
  return { buckets: data, aggregated_at, aggregation_interval_minutes };
}

export const useQuotaData = (query: DataQuery, isAdmin: boolean) =>
  useQuery({ queryKey: dashboardKeys.data(isAdmin, query), queryFn: () => fetchQuotaData(query, isAdmin) });
