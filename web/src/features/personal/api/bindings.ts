import { http } from '../../../lib/http';

/** Providers whose binding the user can remove from /personal. */
export type BoundProvider = 'github' | 'oidc' | 'linuxdo' | 'wechat' | 'telegram';

export const unbindAccount = (provider: BoundProvider) => http.delete<unknown>(`/api/oauth/${provider}/bind`);

export const bindTelegram = (fields: Record<string, string>) => http.get<unknown>('/api/oauth/telegram/bind', { query: fields });
