import type { AdminUser } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { logKeys } from './keys';

/** GET /api/user/:id for the admin's click-through on a user name. */
export const fetchLogUser = (userId: number) => http.get<AdminUser>(`/api/user/${userId}`);

export const useLogUser = (userId: number | null) =>
  useQuery({ queryKey: logKeys.user(userId), queryFn: () => fetchLogUser(userId!), enabled: userId !== null });
