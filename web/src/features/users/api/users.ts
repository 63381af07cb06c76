import type { AdminUserDetail } from '@modelgate/shared';
import { http } from '../../../lib/http';
import { userKeys } from './keys';

/**
 * What SecondFactorsReset (helper-owned, second factors) still imports from here; the users
 * feature's own endpoints are one file each (get-users.ts, get-user.ts, create-user.ts, ...).
 */
export type User = AdminUserDetail;
export const usersQueryKey = userKeys.all;

/** An admin's reset of a user's second factors (a lost device): TOTP with its recovery codes, or every passkey. */
export const resetUserTotp = (id: number) => http.delete<null>(`/api/user/${id}/2fa`);
export const resetUserPasskeys = (id: number) => http.delete<null>(`/api/user/${id}/passkey`);
