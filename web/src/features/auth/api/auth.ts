import type { LoginAnswer } from '@modelgate/shared';
import { http, requestEnvelope } from '../../../lib/http';

export type { OAuthProvider } from '../../../lib/oauth';
import type { OAuthProvider } from '../../../lib/oauth';

/**
 * Third-party sign-in (the OAuth callback, WeChat, Telegram); the password sign-in, registration
 * and reset endpoints are one file each (login.ts, register.ts, ...).
 */
const critical = { noAuthRedirect: true } as const;

/**
 * The callback exchange: the envelope's message matters here ('bind'), so the whole envelope is
 * answered. The provider's `iss` goes along (OIDC checks it); New-Api-User is sent when signed in,
 * which makes the server bind instead of sign in.
 */
export const exchangeOAuthCode = (provider: OAuthProvider, query: { code: string; state: string; iss?: string }) =>
  requestEnvelope<LoginAnswer | null>(`/api/oauth/${provider}`, { silent: true, noAuthRedirect: true, query });

export const loginWithWeChat = (code: string) => http.get<LoginAnswer>('/api/oauth/wechat', { ...critical, query: { code } });

export const loginWithTelegram = (fields: Record<string, string>) =>
  http.get<LoginAnswer>('/api/oauth/telegram/login', { ...critical, query: fields });
