import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { personalKeys } from './keys';

/** GET /api/user/aff: the caller's invite code (created once). */
export const fetchAffCode = () => http.get<string>('/api/user/aff');

export const useAffCode = () => useQuery({ queryKey: personalKeys.affCode, queryFn: fetchAffCode, staleTime: Infinity });
