import { http, requestEnvelope } from '../../../lib/http';
import type { StoredUser } from '../../../lib/user-store';
import type { SecondStepRequest } from './second-step';

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

/** The first step: the user, or (a second factor is set up) what the second step may use. */
export const login = (payload: LoginPayload, turnstile = '') =>
  http.post<StoredUser | SecondStepRequest>('/api/user/login', payload, { ...critical, query: { turnstile } });

export const register = (payload: RegisterPayload, turnstile = '') =>
  http.post<unknown>('/api/user/register', payload, { ...critical, query: { turnstile } });

export const sendVerificationCode = (email: string, turnstile = '') =>
  http.get<unknown>('/api/verification', { ...critical, query: { email, turnstile } });

/**
 * The callback exchange: the envelope's message matters here ('bind'), so the whole envelope is
 * answered. The provider's `iss` goes along (OIDC checks it); New-Api-User is sent when signed in,
 * which makes the server bind instead of sign in.
 */
export const exchangeOAuthCode = (provider: OAuthProvider, query: { code: string; state: string; iss?: string }) =>
  requestEnvelope<StoredUser | SecondStepRequest | null>(`/api/oauth/${provider}`, { silent: true, noAuthRedirect: true, query });

export const loginWithWeChat = (code: string) => http.get<StoredUser | SecondStepRequest>('/api/oauth/wechat', { ...critical, query: { code } });

export const loginWithTelegram = (fields: Record<string, string>) =>
  http.get<StoredUser | SecondStepRequest>('/api/oauth/telegram/login', { ...critical, query: fields });

export const requestPasswordReset = (email: string, turnstile = '') =>
  http.get<unknown>('/api/reset_password', { ...critical, query: { email, turnstile } });

export const confirmPasswordReset = (email: string, token: string) =>
  http.post<string>('/api/user/reset', { email, token }, critical);
