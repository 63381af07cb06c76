import type { SetupStatus } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { setupKeys } from './keys';

/** GET /api/setup: done yet, whether a super admin exists, and the database kind. */
export const fetchSetupState = () => http.get<SetupStatus>('/api/setup', { silent: true, noAuthRedirect: true });

export const useSetupState = () => useQuery({ queryKey: setupKeys.state, queryFn: fetchSetupState });
