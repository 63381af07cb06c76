import type { Token } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { tokenKeys } from './keys';

/** GET /api/token/:id: one of the caller's tokens. */
export const fetchToken = (id: number) => http.get<Token>(`/api/token/${id}`);

export const useToken = (id: number | null) =>
  useQuery({ queryKey: tokenKeys.one(id), queryFn: () => fetchToken(id!), enabled: id !== null, gcTime: 0 });
