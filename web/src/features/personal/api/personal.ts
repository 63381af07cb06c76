import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';

export interface SelfUser {
  id: number;
  username: string;
  display_name: string;
  email: string;
  github_id: string;
  oidc_id: string;
  wechat_id: string;
  telegram_id: string;
  linux_do_id: string;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  role: number;
  aff_code?: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  setting?: string;
}

/** User setting. */
export interface UserSetting {
  notify_type: 'email' | 'webhook';
  quota_warning_threshold: number;
  webhook_url: string;
  webhook_secret: string;
  notification_email: string;
  accept_unset_model_ratio_model: boolean;
}

export const selfQueryKey = ['self'] as const;

export const fetchSelf = () => http.get<SelfUser>('/api/user/self');
export const useSelf = () => useQuery({ queryKey: selfQueryKey, queryFn: fetchSelf });

export const fetchAffCode = () => http.get<string>('/api/user/aff');
export const useAffCode = () => useQuery({ queryKey: ['aff-code'], queryFn: fetchAffCode, staleTime: Infinity });


export const transferAffQuota = (quota: number) => http.post<unknown>('/api/user/aff_transfer', { quota });
export const updateSelf = (fields: Partial<Pick<SelfUser, 'username' | 'display_name'>> & { password?: string; original_password?: string }) => http.put<unknown>('/api/user/self', fields);
export const deleteSelf = () => http.delete<unknown>('/api/user/self');
export const generateAccessToken = () => http.get<string>('/api/user/token');
export const updateUserSetting = (setting: UserSetting) => http.put<unknown>('/api/user/setting', setting);
export const sendEmailCode = (email: string, turnstile = '') => http.get<unknown>('/api/verification', { query: { email, turnstile } });
export const bindEmail = (email: string, code: string) => http.get<unknown>('/api/oauth/email/bind', { query: { email, code } });
export const bindWeChat = (code: string) => http.get<unknown>('/api/oauth/wechat/bind', { query: { code } });

export const defaultUserSetting: UserSetting = {
  notify_type: 'email',
  quota_warning_threshold: 500000,
  webhook_url: '',
  webhook_secret: '',
  notification_email: '',
  accept_unset_model_ratio_model: false,
};

export function parseUserSetting(text: string | undefined): UserSetting {
  if (!text) return defaultUserSetting;
  try {
    return { ...defaultUserSetting, ...(JSON.parse(text) as Partial<UserSetting>) };
  } catch {
    return defaultUserSetting;
  }
}
