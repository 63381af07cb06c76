import { Alert, Divider, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useStatus } from '../../../lib/status';
import { writeString } from '../../../lib/storage-keys';
import { AuthCard } from './AuthCard';
import { affStorageKey } from './LoginPage';
import { RegisterForm } from './RegisterForm';
import { ThirdPartyLogin } from './ThirdPartyLogin';

/** Register: accepts ?aff={code}. */
export function RegisterPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const { data: status } = useStatus();
  const aff = params.get('aff');
  useEffect(() => {
    if (aff) writeString(affStorageKey, aff);
  }, [aff]);
  const isOpen = (status?.register_enabled ?? true) && (status?.password_register_enabled ?? true);
  return (
    <AuthCard title={t('auth.registerTitle')}>
      {isOpen ? (
        <RegisterForm emailVerification={!!status?.email_verification} />
      ) : (
        <Alert type="warning" showIcon title={t('auth.registerClosed')} />
      )}
      <ThirdPartyLogin status={status ?? null} />
      <Divider plain />
      <Typography.Paragraph style={{ textAlign: 'center', marginBottom: 0 }}>
        {t('auth.haveAccount')} <Link to="/login">{t('auth.loginLink')}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}
