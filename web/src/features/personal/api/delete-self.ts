import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** DELETE /api/user/self: cancels the caller's account and ends its sessions. */
export const deleteSelf = () => http.delete<null>('/api/user/self');

export const useDeleteSelf = () => useMutation({ mutationFn: deleteSelf });
