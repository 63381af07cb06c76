import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { accountMessages, loginSchema } from '@modelgate/shared';
import { Button, Form, Input } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Turnstile } from '../../../components/Turnstile';
import { feedback, showError } from '../../../lib/feedback';
import { firstProblem } from '../../../lib/form-rules';
import { useLogin } from '../api/login';
import { useFinishSignIn } from '../hooks/useFinishSignIn';
import { useTurnstile } from '../../../lib/use-turnstile';

interface LoginValues {
  username?: string;
  password?: string;
}

const isDefaultRootCredential = (values: LoginValues) => values.username === 'root' && values.password === '123456';

/** Username or email and password; a user with a second factor goes on to the second step. */
export function LoginForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const finishSignIn = useFinishSignIn();
  const turnstile = useTurnstile();
  const [loading, setLoading] = useState(false);
  const login = useLogin();

  const onFinish = async (values: LoginValues) => {
    const username = values.username?.trim() ?? '';
    const password = values.password ?? '';
    const problem = firstProblem(loginSchema, { username, password }, accountMessages);
    if (problem) {
      showError(problem.key === 'loginFieldsRequired' ? t('auth.loginRequired') : problem.message);
      return;
    }
    if (!turnstile.isReady()) return;
    setLoading(true);
    try {
      const isSignedIn = finishSignIn(await login.mutateAsync({ payload: { username, password }, turnstile: turnstile.token }));
      if (isSignedIn && isDefaultRootCredential(values)) {
        feedback.modal.warning({
          title: t('auth.defaultPasswordTitle'),
          content: t('auth.defaultPasswordText'),
          onOk: () => navigate('/personal'),
        });
      }
    } catch {
      // the http client already showed the server message
    } finally {
      setLoading(false);
    }
  };

  return (
    <Form layout="vertical" onFinish={onFinish} requiredMark={false}>
      <Form.Item name="username" label={t('auth.usernameOrEmail')}>
        <Input prefix={<UserOutlined />} autoComplete="username" placeholder={t('auth.usernameOrEmailPlaceholder')} />
      </Form.Item>
      <Form.Item name="password" label={t('auth.password')}>
        <Input.Password prefix={<LockOutlined />} autoComplete="current-password" placeholder={t('auth.passwordInputPlaceholder')} />
      </Form.Item>
      {turnstile.isEnabled && <Turnstile siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
      <Button type="primary" htmlType="submit" block loading={loading}>
        {t('auth.loginButton')}
      </Button>
    </Form>
  );
}
