import type { TwoFactorStatus } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** GET /api/user/2fa/status. */
export const fetchTwoFactorStatus = () => http.get<TwoFactorStatus>('/api/user/2fa/status');

export const useTwoFactorStatus = () => useQuery({ queryKey: twoFactorKeys.all, queryFn: fetchTwoFactorStatus });
