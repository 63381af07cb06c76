import { Form, Input, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { CountdownButton } from '../../../components/CountdownButton';
import { Turnstile } from '../../../components/Turnstile';
import { useRequestPasswordReset } from '../api/request-password-reset';
import { useEmailRequest } from '../hooks/useEmailRequest';
import { useTurnstile } from '../../../lib/use-turnstile';
import { AuthCard } from './AuthCard';

/** Password reset request: email, optional bot check, then a 30 s retry lock. */
export function PasswordResetRequestPage() {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ email: string }>();
  const turnstile = useTurnstile();
  const requestPasswordReset = useRequestPasswordReset();
  const submit = useEmailRequest(
    form,
    turnstile,
    (email, token) => requestPasswordReset.mutateAsync({ email, turnstile: token }),
    'auth.resetMailSent',
  );
  return (
    <AuthCard title={t('auth.resetTitle')}>
      <Form form={form} layout="vertical" requiredMark={false}>
        <Form.Item name="email" label={t('auth.email')}>
          <Input autoComplete="email" placeholder="name@example.com" />
        </Form.Item>
        {turnstile.isEnabled && <Turnstile siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
        <CountdownButton type="primary" block onClick={submit}>
          {t('auth.resetSubmit')}
        </CountdownButton>
      </Form>
      <Typography.Paragraph style={{ textAlign: 'center', marginTop: 16, marginBottom: 0 }}>
        <Link to="/login">{t('auth.loginLink')}</Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}
