import type { Passkey } from '@modelgate/shared';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../../lib/http';
import { twoFactorKeys } from './keys';

/** GET /api/user/passkey. */
export const fetchPasskeys = () => http.get<Passkey[]>('/api/user/passkey');

export const usePasskeys = (enabled: boolean) => useQuery({ queryKey: twoFactorKeys.passkeys(), queryFn: fetchPasskeys, enabled });
