import type { SelfUser } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../http';

export type { SelfUser };

/** The signed-in user's own row: every screen that shows or changes it uses this key. */
export const selfKey = ['self'] as const;

/** GET /api/user/self. */
export const fetchSelf = () => http.get<SelfUser>('/api/user/self');

export const useSelf = () => useQuery({ queryKey: selfKey, queryFn: fetchSelf });
