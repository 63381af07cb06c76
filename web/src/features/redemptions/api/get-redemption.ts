import type { Redemption } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { redemptionKeys } from './keys';

/** GET /api/redemption/:id. */
export const fetchRedemption = (id: number) => http.get<Redemption>(`/api/redemption/${id}`);

export const useRedemption = (id: number | null) =>
  useQuery({ queryKey: redemptionKeys.one(id), queryFn: () => fetchRedemption(id!), enabled: id !== null, gcTime: 0 });
