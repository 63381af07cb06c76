import { Alert, List, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useTwoFactorStatus } from '../api/get-two-factor-status';
import { PasskeysItem } from './PasskeysItem';
import { TotpItem } from './TotpItem';

/** Second factors: the authenticator app with its recovery codes, and passkeys (when offered). */
export function TwoFactorPanel() {
  const { t } = useTranslation();
  const status = useTwoFactorStatus();
  if (!status.data) return <Spin />;
  return (
    <>
      {status.data.required && <Alert type="warning" showIcon title={t('twoFactor.mustEnrol')} style={{ marginBottom: 12 }} />}
      <List>
        <TotpItem status={status.data} />
        {status.data.passkey_enabled && <PasskeysItem />}
      </List>
    </>
  );
}
