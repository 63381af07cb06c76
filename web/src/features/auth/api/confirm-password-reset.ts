import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** POST /api/user/reset: the mailed link's token sets a new random password, answered for the screen to copy. */
export const confirmPasswordReset = ({ email, token }: { email: string; token: string }) =>
  http.post<string>('/api/user/reset', { email, token }, { noAuthRedirect: true });

export const useConfirmPasswordReset = () => useMutation({ mutationFn: confirmPasswordReset });
