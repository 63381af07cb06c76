import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** One hourly bucket of quota_data: a user's use of a model in an hour. */
export interface QuotaBucket {
  id: number;
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  count: number;
  quota: number;
  token_used: number;
}

export interface DataQuery {
  start_timestamp: number;
  end_timestamp: number;
  /** Admin only. */
  username: string;
}

/** GET /api/data/ (admin, optional username) or /api/data/self. */
export const useQuotaData = (query: DataQuery, isAdmin: boolean) =>
  useQuery({
    queryKey: ['dashboard', isAdmin, query],
    queryFn: () =>
      http.get<QuotaBucket[]>(isAdmin ? '/api/data/' : '/api/data/self', {
        query: {
          start_timestamp: query.start_timestamp || undefined,
          end_timestamp: query.end_timestamp || undefined,
          username: isAdmin ? query.username || undefined : undefined,
        },
      }),
  });
