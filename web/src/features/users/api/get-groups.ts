import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { groupsKey } from './keys';

/** GET /api/group/: every group name. */
export const fetchGroups = () => http.get<string[]>('/api/group/');

export const useGroups = () => useQuery({ queryKey: groupsKey, queryFn: fetchGroups, staleTime: 60_000 });
