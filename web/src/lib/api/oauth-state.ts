import { http } from '../http';

/** GET /api/oauth/state: a one-use state for an authorize redirect (with the stored invite code); the server sets it as a cookie too. */
export const fetchOAuthState = (aff: string | undefined) => http.get<string>('/api/oauth/state', { noAuthRedirect: true, query: { aff } });
