import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

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

export const submitSetup = (payload: SetupPayload) => http.post<unknown>('/api/setup', payload, { silent: true, noAuthRedirect: true });
