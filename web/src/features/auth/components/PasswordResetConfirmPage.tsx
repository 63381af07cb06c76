import { Alert, Button, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { copyText } from '../../../lib/clipboard';
import { useConfirmPasswordReset } from '../api/confirm-password-reset';
import { AuthCard } from './AuthCard';

/** Password reset confirm: reads email and token from the query string, shows and copies the new password. */
export function PasswordResetConfirmPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const email = params.get('email') ?? '';
  const token = params.get('token') ?? '';
  const [newPassword, setNewPassword] = useState('');
  const [loading, setLoading] = useState(false);
  const confirmPasswordReset = useConfirmPasswordReset();
  const submit = async () => {
    setLoading(true);
    try {
      const password = await confirmPasswordReset.mutateAsync({ email, token });
      setNewPassword(password);
      await copyText(password, t('auth.newPasswordCopied', { password }));
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };
  return (
    <AuthCard title={t('auth.resetConfirmTitle')}>
      {!email || !token ? (
        <Alert type="error" showIcon title={t('auth.resetLinkInvalid')} />
      ) : (
        <Form layout="vertical">
          <Form.Item label={t('auth.email')}>
            <Input value={email} readOnly />
          </Form.Item>
          {newPassword && (
            <Form.Item label={t('auth.newPassword')}>
              <Typography.Text copyable code>
                {newPassword}
              </Typography.Text>
            </Form.Item>
          )}
          <Button type="primary" block loading={loading} disabled={!!newPassword} onClick={() => void submit()}>
            {t('auth.resetConfirmButton')}
          </Button>
        </Form>
      )}
    </AuthCard>
  );
}
