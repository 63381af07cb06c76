import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import type { StoredUser } from '../../../lib/user-store';

export interface SetupState {
  status: boolean;
  root_init: boolean;
  database_type: string;
}

export interface SetupPayload {
  username?: string;
  password?: string;
  confirmPassword?: string;
  SelfUseModeEnabled: boolean;
  DemoSiteEnabled: boolean;
}

export const setupQueryKey = ['setup'] as const;

export const fetchSetupState = () => http.get<SetupState>('/api/setup', { silent: true, noAuthRedirect: true });

export const useSetupState = () => useQuery({ queryKey: setupQueryKey, queryFn: fetchSetupState });

/** Answers the new root, signed in (the session cookie is set); null when a root already existed (an import). */
export const submitSetup = (payload: SetupPayload) => http.post<StoredUser | null>('/api/setup', payload, { silent: true, noAuthRedirect: true });
