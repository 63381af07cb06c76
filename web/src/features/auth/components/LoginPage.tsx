import { Alert, Divider, Typography } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useStatus } from '../../../lib/status';
import { writeString } from '../../../lib/storage-keys';
import { AuthCard } from './AuthCard';
import { isSecondStepRequest } from '../api/second-step';
import { useFinishSignIn } from '../hooks/useFinishSignIn';
import { LoginForm } from './LoginForm';
import { PasskeyLoginButton } from './PasskeyLoginButton';
import { SecondStepForm } from './SecondStepForm';
import { ThirdPartyLogin } from './ThirdPartyLogin';

export const affStorageKey = 'aff';

/**
 * Sign in: accepts ?expired=true and ?aff={code}. After a first step that
 * needs a second one (router state `secondStep`, from any sign-in way), the second step is shown.
 */
export function LoginPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const finishSignIn = useFinishSignIn();
  const secondStep: unknown = (location.state as { secondStep?: unknown } | null)?.secondStep;
  const { data: status } = useStatus();
  const isExpired = params.get('expired') === 'true';
  const aff = params.get('aff');
  useEffect(() => {
    if (aff) writeString(affStorageKey, aff);
  }, [aff]);
  const isPasswordLoginEnabled = status?.password_login_enabled ?? true;

  if (isSecondStepRequest(secondStep)) {
    return (
      <AuthCard title={t('twoFactor.secondStepTitle')}>
        <SecondStepForm request={secondStep} onSignedIn={finishSignIn} onBack={() => navigate('/login', { replace: true, state: null })} />
      </AuthCard>
    );
  }
  return (
    <AuthCard title={t('auth.loginTitle')}>
      {isExpired && <Alert type="info" showIcon title={t('auth.expired')} style={{ marginBottom: 16 }} />}
      {isPasswordLoginEnabled && <LoginForm />}
      {status?.passkey_login && <PasskeyLoginButton />}
      <ThirdPartyLogin status={status ?? null} />
      <Divider plain />
      <Typography.Paragraph style={{ textAlign: 'center', marginBottom: 0 }}>
        {!status?.self_use_mode_enabled && (
          <>
            {t('auth.noAccount')} <Link to="/register">{t('auth.registerLink')}</Link>
            {' · '}
          </>
        )}
        <Link to="/reset">{t('auth.forgotPassword')}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}
