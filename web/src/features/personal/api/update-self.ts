import type { UpdateSelfPayload } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** PUT /api/user/self: the caller's own name or password (the original one with a new password). */
export const updateSelf = (payload: UpdateSelfPayload) => http.put<null>('/api/user/self', payload);

export const useUpdateSelf = () => useMutation({ mutationFn: updateSelf });
