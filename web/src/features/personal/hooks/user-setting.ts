import type { UserSettingInput } from '@modelgate/shared';

/** The caller's settings as the forms edit them (the shared schema's parsed shape). */
export type UserSetting = UserSettingInput;

export const defaultUserSetting: UserSetting = {
  notify_type: 'email',
  quota_warning_threshold: 500000,
  webhook_url: '',
  webhook_secret: '',
  notification_email: '',
  accept_unset_model_ratio_model: false,
};

/** The settings JSON text of the self row, with the defaults for what it lacks. */
export function parseUserSetting(text: string | undefined): UserSetting {
  if (!text) return defaultUserSetting;
  try {
    return { ...defaultUserSetting, ...(JSON.parse(text) as Partial<UserSetting>) };
  } catch {
    return defaultUserSetting;
  }
}
