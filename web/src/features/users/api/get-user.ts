import type { AdminUserDetail } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { userKeys } from './keys';

/** GET /api/user/:id: a user for the admin editor, with the second factors it can reset. */
export const fetchUser = (id: number) => http.get<AdminUserDetail>(`/api/user/${id}`);

export const useUser = (id: number | null) =>
  useQuery({ queryKey: userKeys.one(id ?? 0), queryFn: () => fetchUser(id!), enabled: id !== null });
