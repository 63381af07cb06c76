import { http } from '../../../lib/http';
import type { StoredUser } from '../../../lib/user-store';

export interface LoginPayload {
  username: string;
  password: string;
}

export interface RegisterPayload {
  username: string;
  password: string;
  password2: string;
  email?: string;
  verification_code?: string;
  aff_code?: string;
}

export type { OAuthProvider } from '../../../lib/oauth';
import type { OAuthProvider } from '../../../lib/oauth';

const critical = { noAuthRedirect: true } as const;

export const login = (payload: LoginPayload, turnstile = '') =>
  http.post<StoredUser>('/api/user/login', payload, { ...critical, query: { turnstile } });

export const register = (payload: RegisterPayload, turnstile = '') =>
  http.post<unknown>('/api/user/register', payload, { ...critical, query: { turnstile } });

export const sendVerificationCode = (email: string, turnstile = '') =>
  http.get<unknown>('/api/verification', { ...critical, query: { email, turnstile } });

/** The raw envelope message matters here ('bind'), so this call reads the response itself. */
export async function exchangeOAuthCodeWithMessage(provider: OAuthProvider, code: string, state: string) {
  const params = new URLSearchParams({ code, state });
  const response = await fetch(`/api/oauth/${provider}?${params.toString()}`, { credentials: 'same-origin' });
  const body = (await response.json()) as { success: boolean; message: string; data: StoredUser | null };
  return body;
}

export const loginWithWeChat = (code: string) => http.get<StoredUser>('/api/oauth/wechat', { ...critical, query: { code } });

export const loginWithTelegram = (fields: Record<string, string>) =>
  http.get<StoredUser>('/api/oauth/telegram/login', { ...critical, query: fields });

export const requestPasswordReset = (email: string, turnstile = '') =>
  http.get<unknown>('/api/reset_password', { ...critical, query: { email, turnstile } });

export const confirmPasswordReset = (email: string, token: string) =>
  http.post<string>('/api/user/reset', { email, token }, critical);
