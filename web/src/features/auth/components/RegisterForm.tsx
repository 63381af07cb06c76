import {
  accountMessages,
  passwordMaxLength,
  passwordMinLength,
  registerSchema,
  usernameMaxLength,
  type RegisterPayload,
} from '@modelgate/shared';
import { Button, Form, Input, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { CountdownButton } from '../../../components/CountdownButton';
import { Turnstile } from '../../../components/Turnstile';
import { showError, showSuccess } from '../../../lib/feedback';
import { firstProblem } from '../../../lib/form-rules';
import { readString } from '../../../lib/storage-keys';
import { useRegister } from '../api/register';
import { useSendVerificationCode } from '../api/send-verification-code';
import { useEmailRequest } from '../hooks/useEmailRequest';
import { useTurnstile } from '../../../lib/use-turnstile';

interface RegisterValues {
  username: string;
  password: string;
  password2: string;
  email?: string;
  verification_code?: string;
}

/** The i18n key of each register rule's message (accountMessages names them). */
const problemKeys: Record<string, string> = {
  usernamePasswordRequired: 'users.usernamePasswordRequired',
  usernameTooLong: 'auth.usernameTooLong',
  passwordTooShort: 'auth.passwordTooShort',
  passwordTooLong: 'auth.passwordTooLong',
  passwordMismatch: 'auth.passwordMismatch',
  invalidEmail: 'auth.emailInvalid',
};

/** Register form with its field rules and messages; the payload is checked by registerSchema before it is sent. */
export function RegisterForm({ emailVerification }: { emailVerification: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [form] = Form.useForm<RegisterValues>();
  const turnstile = useTurnstile();
  const [loading, setLoading] = useState(false);

  const register = useRegister();
  const sendVerificationCode = useSendVerificationCode();
  const sendCode = useEmailRequest(
    form,
    turnstile,
    (email, token) => sendVerificationCode.mutateAsync({ email, turnstile: token }),
    'auth.codeSent',
  );

  const onFinish = async (values: RegisterValues) => {
    const payload: RegisterPayload = {
      username: values.username.trim(),
      password: values.password,
      password2: values.password2,
      ...(emailVerification ? { email: values.email?.trim(), verification_code: values.verification_code?.trim() } : {}),
      aff_code: readString('aff') ?? undefined,
    };
    const problem = firstProblem(registerSchema, payload, accountMessages);
    if (problem) {
      const key = problem.key ? problemKeys[problem.key] : undefined;
      showError(key ? t(key, { max: usernameMaxLength, defaultValue: problem.message }) : problem.message);
      return;
    }
    if (!turnstile.isReady()) return;
    setLoading(true);
    try {
      await register.mutateAsync({ payload, turnstile: turnstile.token });
      showSuccess(t('auth.registerSuccess'));
      navigate('/login');
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };

  return (
    <Form form={form} layout="vertical" onFinish={onFinish} requiredMark={false}>
      <Form.Item
        name="username"
        label={t('auth.username')}
        rules={[
          { required: true, whitespace: true, message: t('auth.usernameRequired') },
          { max: usernameMaxLength, message: t('auth.usernameTooLong', { max: usernameMaxLength }) },
        ]}
      >
        <Input
          autoComplete="username"
          maxLength={usernameMaxLength}
          placeholder={t('auth.usernamePlaceholder', { max: usernameMaxLength })}
        />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('auth.password')}
        rules={[
          { required: true, message: t('auth.passwordRequired') },
          { min: passwordMinLength, message: t('auth.passwordTooShort') },
        ]}
      >
        <Input.Password autoComplete="new-password" maxLength={passwordMaxLength} placeholder={t('auth.passwordPlaceholder')} />
      </Form.Item>
      <Form.Item
        name="password2"
        label={t('auth.confirmPassword')}
        dependencies={['password']}
        rules={[
          { required: true, message: t('auth.confirmPasswordRequired') },
          ({ getFieldValue }) => ({
            validator: (_rule, value) =>
              !value || value === getFieldValue('password') ? Promise.resolve() : Promise.reject(new Error(t('auth.passwordMismatch'))),
          }),
        ]}
      >
        <Input.Password autoComplete="new-password" maxLength={passwordMaxLength} />
      </Form.Item>
      {emailVerification && (
        <>
          <Form.Item
            name="email"
            label={t('auth.email')}
            rules={[
              { required: true, message: t('auth.emailRequired') },
              { type: 'email', message: t('auth.emailInvalid') },
            ]}
          >
            <Input autoComplete="email" placeholder="name@example.com" />
          </Form.Item>
          <Form.Item label={t('auth.verificationCode')} required>
            <Space.Compact style={{ width: '100%' }}>
              <Form.Item name="verification_code" noStyle rules={[{ required: true, message: t('auth.codeRequired') }]}>
                <Input aria-label={t('auth.verificationCode')} />
              </Form.Item>
              <CountdownButton onClick={sendCode}>{t('auth.getCode')}</CountdownButton>
            </Space.Compact>
          </Form.Item>
        </>
      )}
      {turnstile.isEnabled && <Turnstile siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
      <Button type="primary" htmlType="submit" block loading={loading}>
        {t('auth.registerButton')}
      </Button>
    </Form>
  );
}
