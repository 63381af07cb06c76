import { KeyOutlined, SafetyOutlined } from '@ant-design/icons';
import { Button, Divider, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SecondStepRequest, SessionUser } from '@modelgate/shared';
import { useVerifyLoginCode } from '../api/verify-login-code';
import { useVerifyLoginPasskey } from '../api/verify-login-passkey';
import { showPasskeyError } from './passkey-errors';
import { secondFactorCodeRule } from '../../../lib/second-factor-code';

/**
 * The second step of a sign-in: a code from the authenticator app (or a recovery code), or one of
 * the user's passkeys. The session starts only when this step passes.
 */
export function SecondStepForm({
  request,
  onSignedIn,
  onBack,
}: {
  request: SecondStepRequest;
  onSignedIn: (user: SessionUser) => void;
  onBack: () => void;
}) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState<'code' | 'passkey' | null>(null);
  const verifyCode = useVerifyLoginCode();
  const verifyPasskey = useVerifyLoginPasskey();

  const submitCode = async ({ code }: { code?: string }) => {
    if (!code?.trim()) return;
    setBusy('code');
    try {
      onSignedIn(await verifyCode.mutateAsync(code.trim()));
    } catch {
      // the http client showed the server's message
    } finally {
      setBusy(null);
    }
  };
  const verifyWithPasskey = async () => {
    setBusy('passkey');
    try {
      onSignedIn(await verifyPasskey.mutateAsync());
    } catch (error) {
      showPasskeyError(error, t);
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <Typography.Paragraph type="secondary">
        {request.totp ? t('twoFactor.secondStepHint') : t('twoFactor.secondStepPasskeyHint')}
      </Typography.Paragraph>
      {request.totp && (
        <Form layout="vertical" onFinish={(values: { code?: string }) => void submitCode(values)} requiredMark={false}>
          <Form.Item name="code" label={t('twoFactor.code')} rules={[secondFactorCodeRule(t)]}>
            <Input
              prefix={<SafetyOutlined />}
              autoFocus
              autoComplete="one-time-code"
              inputMode="text"
              maxLength={32}
              placeholder={t('twoFactor.codePlaceholder')}
            />
          </Form.Item>
          <Button type="primary" htmlType="submit" block loading={busy === 'code'}>
            {t('twoFactor.verify')}
          </Button>
        </Form>
      )}
      {request.totp && request.passkey && <Divider plain>{t('twoFactor.or')}</Divider>}
      {request.passkey && (
        <Button block icon={<KeyOutlined />} loading={busy === 'passkey'} onClick={() => void verifyWithPasskey()}>
          {t('twoFactor.usePasskey')}
        </Button>
      )}
      <Button type="link" block onClick={onBack} style={{ marginTop: 8 }}>
        {t('twoFactor.backToLogin')}
      </Button>
    </>
  );
}
