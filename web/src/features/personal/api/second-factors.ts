import { startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

export interface TwoFactorStatus {
  enabled: boolean;
  enabled_at: number;
  backup_codes_remaining: number;
  passkey_enabled: boolean;
  passkey_count: number;
  /** An admin who must enrol a second factor (TwoFactorRequiredForAdmins). */
  required: boolean;
}

export interface Passkey {
  id: number;
  name: string;
  device_type: string;
  backed_up: boolean;
  created_at: number;
  last_used_at: number;
}

export const twoFactorQueryKey = ['two-factor'] as const;
export const passkeysQueryKey = [...twoFactorQueryKey, 'passkeys'] as const;

export const fetchTwoFactorStatus = () => http.get<TwoFactorStatus>('/api/user/2fa/status');
export const useTwoFactorStatus = () => useQuery({ queryKey: twoFactorQueryKey, queryFn: fetchTwoFactorStatus });

export const startTotpSetup = () => http.post<{ secret: string; otpauth_url: string }>('/api/user/2fa/setup');
export const enableTotp = (code: string) => http.post<{ backup_codes: string[] }>('/api/user/2fa/enable', { code });
export const disableTotp = (code: string) => http.post<null>('/api/user/2fa/disable', { code });
export const regenerateRecoveryCodes = (code: string) => http.post<{ backup_codes: string[] }>('/api/user/2fa/backup_codes', { code });

export const fetchPasskeys = () => http.get<Passkey[]>('/api/user/passkey');
export const usePasskeys = (enabled: boolean) => useQuery({ queryKey: passkeysQueryKey, queryFn: fetchPasskeys, enabled });

/** Registers a passkey: options from the server, the browser's authenticator creates it, the server stores it. */
export async function registerPasskey(name: string): Promise<void> {
  const optionsJSON = await http.post<PublicKeyCredentialCreationOptionsJSON>('/api/user/passkey/register/begin');
  const response = await startRegistration({ optionsJSON });
  await http.post<null>('/api/user/passkey/register/finish', { name, response });
}

export const renamePasskey = (id: number, name: string) => http.put<null>(`/api/user/passkey/${id}`, { name });
export const removePasskey = (id: number) => http.delete<null>(`/api/user/passkey/${id}`);
