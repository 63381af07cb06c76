import type { UserSettingPayload } from '@modelgate/shared';
import { useMutation } from '@tanstack/react-query';
import { http } from '../../../lib/http';

/** PUT /api/user/setting: quota warnings and the unpriced-model choice. */
export const updateUserSetting = (setting: UserSettingPayload) => http.put<null>('/api/user/setting', setting);

export const useUpdateUserSetting = () => useMutation({ mutationFn: updateUserSetting });
