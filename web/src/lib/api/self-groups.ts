import type { SelfGroup } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../http';

export type { SelfGroup };

export const selfGroupsKey = ['self-groups'] as const;

/** GET /api/user/self/groups: the groups the caller may pick, with description and ratio. */
export const fetchSelfGroups = () => http.get<Record<string, SelfGroup>>('/api/user/self/groups');

export const useSelfGroups = () => useQuery({ queryKey: selfGroupsKey, queryFn: fetchSelfGroups, staleTime: 60_000 });
