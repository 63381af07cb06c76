import { useQuery } from '@tanstack/react-query';
import { http } from '../http';

export const groupsKey = ['groups'] as const;

/** GET /api/group/: every group name (the keys of GroupRatio); the channel and user editors pick from it. */
export const fetchGroups = () => http.get<string[]>('/api/group/');

export const useGroups = () => useQuery({ queryKey: groupsKey, queryFn: fetchGroups, staleTime: 60_000 });
