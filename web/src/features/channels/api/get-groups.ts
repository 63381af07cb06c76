import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { channelKeys } from './keys';

/** GET /api/group/: the group names (the keys of GroupRatio). */
export const fetchGroups = () => http.get<string[]>('/api/group/');

export const useGroups = () => useQuery({ queryKey: channelKeys.groups, queryFn: fetchGroups, staleTime: 60_000 });
