import { Button, Descriptions, Popconfirm } from 'antd';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { useResetUserPasskeys, useResetUserTotp } from '../api/reset-second-factors';
import type { AdminUserDetail } from '@modelgate/shared';

/** The user's second factors in the editor, with the admin's reset (a lost device); the server checks the role. */
export function SecondFactorsReset({ user }: { user: AdminUserDetail }) {
  const { t } = useTranslation();
  const resetTotp = useResetUserTotp();
  const resetPasskeys = useResetUserPasskeys();
  const run = async (reset: () => Promise<unknown>, message: string) => {
    try {
      await reset();
      showSuccess(message);
    } catch {
      // shown by the http client
    }
  };
  const resetButton = (isSet: boolean, confirm: string, onConfirm: () => void) => (
    <Popconfirm title={confirm} onConfirm={onConfirm} okText={t('common.confirm')} cancelText={t('common.cancel')} disabled={!isSet}>
      <Button size="small" danger disabled={!isSet} style={{ marginLeft: 8 }}>
        {t('twoFactor.reset')}
      </Button>
    </Popconfirm>
  );
  return (
    <Descriptions size="small" column={1} bordered title={t('twoFactor.adminTitle')} style={{ marginTop: 16 }}>
      <Descriptions.Item label={t('twoFactor.totpTitle')}>
        {user.two_fa_enabled ? t('twoFactor.on') : t('twoFactor.off')}
        {resetButton(
          !!user.two_fa_enabled,
          t('twoFactor.resetTotpConfirm'),
          () => void run(() => resetTotp.mutateAsync(user.id), t('twoFactor.resetTotpDone')),
        )}
      </Descriptions.Item>
      <Descriptions.Item label={t('twoFactor.passkeysTitle')}>
        {user.passkey_count ?? 0}
        {resetButton(
          (user.passkey_count ?? 0) > 0,
          t('twoFactor.resetPasskeysConfirm'),
          () => void run(() => resetPasskeys.mutateAsync(user.id), t('twoFactor.resetPasskeysDone')),
        )}
      </Descriptions.Item>
    </Descriptions>
  );
}
