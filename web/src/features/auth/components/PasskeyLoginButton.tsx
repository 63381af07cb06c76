import { KeyOutlined } from '@ant-design/icons';
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { Button } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSignInWithPasskey } from '../api/sign-in-with-passkey';
import { useFinishSignIn } from '../hooks/useFinishSignIn';
import { showPasskeyError } from './passkey-errors';

/** Sign in with a passkey instead of the password (shown while the server offers passkeys and the browser has WebAuthn). */
export function PasskeyLoginButton() {
  const { t } = useTranslation();
  const finishSignIn = useFinishSignIn();
  const signInMutation = useSignInWithPasskey();
  const [loading, setLoading] = useState(false);
  if (!browserSupportsWebAuthn()) return null;
  const signIn = async () => {
    setLoading(true);
    try {
      finishSignIn(await signInMutation.mutateAsync());
    } catch (error) {
      showPasskeyError(error, t);
    } finally {
      setLoading(false);
    }
  };
  return (
    <Button block icon={<KeyOutlined />} loading={loading} onClick={() => void signIn()} style={{ marginTop: 12 }}>
      {t('twoFactor.signInWithPasskey')}
    </Button>
  );
}
