import type { TotpSetup } from '@modelgate/shared';
import { http } from '../../../lib/http';

/** POST /api/user/2fa/setup: a new secret for each opening of the enrolment (no cached query, nothing to refresh). */
export const startTotpSetup = () => http.post<TotpSetup>('/api/user/2fa/setup');
