import { useQuery } from '@tanstack/react-query';
import { requestEnvelope } from '../../../lib/http';

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

/** How fresh the buckets are, answered beside them: the last aggregation (epoch seconds, 0 = not yet) and its interval. */
export interface AggregationState {
  aggregated_at: number;
  aggregation_interval_minutes: number;
}

export interface QuotaData extends Partial<AggregationState> {
  buckets: QuotaBucket[];
}

/** GET /api/data/ (admin, optional username) or /api/data/self. */
export const useQuotaData = (query: DataQuery, isAdmin: boolean) =>
  useQuery({
    queryKey: ['dashboard', isAdmin, query],
    queryFn: async (): Promise<QuotaData> => {
      const { data, aggregated_at, aggregation_interval_minutes } = await requestEnvelope<QuotaBucket[], AggregationState>(isAdmin ? '/api/data/' : '/api/data/self', {
        query: {
          start_timestamp: query.start_timestamp || undefined,
          end_timestamp: query.end_timestamp || undefined,
          username: isAdmin ? query.username || undefined : undefined,
        },
      });
      return { buckets: data, aggregated_at, aggregation_interval_minutes };
    },
  });
