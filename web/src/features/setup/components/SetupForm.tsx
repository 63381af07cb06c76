import { QuestionCircleOutlined } from '@ant-design/icons';
import {
  accountMessages,
  passwordMaxLength,
  passwordMinLength,
  setupModeSchema,
  setupSchema,
  usernameMaxLength,
  type SetupPayload,
} from '@modelgate/shared';
import { Button, Form, Input, Modal, Radio, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { ApiError } from '../../../lib/http';
import { userStore } from '../../../lib/user-store';
import { firstProblem } from '../../../lib/form-rules';
import { useLeaveSetup, useSubmitSetup } from '../api/submit-setup';

/** The i18n key of each setup rule's message (accountMessages names them). */
const problemKeys: Record<string, string> = {
  setupUsernameRequired: 'setup.usernameRequired',
  setupUsernameTooLong: 'setup.usernameTooLong',
  setupPasswordTooShort: 'setup.passwordTooShort',
  setupPasswordTooLong: 'setup.passwordTooLong',
  setupPasswordMismatch: 'setup.passwordMismatch',
  exclusiveModes: 'setup.exclusiveModes',
};

type UsageMode = 'external' | 'self' | 'demo';

interface SetupValues {
  username?: string;
  password?: string;
  confirmPassword?: string;
  usageMode: UsageMode;
}

export function SetupForm({ hasAdmin }: { hasAdmin: boolean }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<SetupValues>();
  const [loading, setLoading] = useState(false);
  const [isModeHelpOpen, setModeHelpOpen] = useState(false);
  const submitSetup = useSubmitSetup();
  const leave = useLeaveSetup();

  const onFinish = async (values: SetupValues) => {
    const payload: SetupPayload = {
      ...(hasAdmin ? {} : { username: values.username, password: values.password, confirmPassword: values.confirmPassword }),
      SelfUseModeEnabled: values.usageMode === 'self',
      DemoSiteEnabled: values.usageMode === 'demo',
    };
    // The server's own rules: the account's (unless a super admin exists) and the usage mode's.
    const problem = firstProblem(hasAdmin ? setupModeSchema : setupSchema, payload, accountMessages);
    if (problem) {
      const key = problem.key ? problemKeys[problem.key] : undefined;
      showError(key ? t(key, { defaultValue: problem.message }) : problem.message);
      return;
    }
    setLoading(true);
    try {
      const root = await submitSetup.mutateAsync(payload);
      // The new root is signed in and lands in the console; an imported root signs in with its own password.
      if (root) userStore.set(root);
      showSuccess(t('setup.success'));
      window.setTimeout(leave, 1500);
    } catch (error) {
      // The loading state is reset only on a network error.
      if (error instanceof ApiError && error.status === 0) {
        showError(t('setup.networkError'));
        setLoading(false);
      } else {
        showError(error instanceof ApiError && error.message ? error.message : t('setup.failed'));
        setLoading(false);
      }
    }
  };

  return (
    <Form form={form} layout="vertical" initialValues={{ usageMode: 'external' }} onFinish={onFinish} requiredMark={false}>
      {!hasAdmin && (
        <>
          <Form.Item
            name="username"
            label={t('setup.username')}
            rules={[{ required: true, whitespace: true, message: t('setup.usernameRequired') }]}
          >
            <Input maxLength={usernameMaxLength} autoComplete="username" placeholder={t('setup.usernamePlaceholder')} />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('setup.password')}
            rules={[
              { required: true, message: t('setup.passwordTooShort') },
              { min: passwordMinLength, message: t('setup.passwordTooShort') },
            ]}
          >
            <Input.Password maxLength={passwordMaxLength} autoComplete="new-password" placeholder={t('auth.passwordPlaceholder')} />
          </Form.Item>
          <Form.Item
            name="confirmPassword"
            label={t('setup.confirmPassword')}
            dependencies={['password']}
            rules={[
              { required: true, message: t('setup.passwordMismatch') },
              ({ getFieldValue }) => ({
                validator: (_rule, value) =>
                  !value || value === getFieldValue('password')
                    ? Promise.resolve()
                    : Promise.reject(new Error(t('setup.passwordMismatch'))),
              }),
            ]}
          >
            <Input.Password maxLength={passwordMaxLength} autoComplete="new-password" />
          </Form.Item>
        </>
      )}
      <Form.Item
        name="usageMode"
        label={
          <Space>
            {t('setup.usageMode')}
            <Button
              type="link"
              size="small"
              icon={<QuestionCircleOutlined />}
              onClick={() => setModeHelpOpen(true)}
              aria-label={t('setup.modeHelpTitle')}
            />
          </Space>
        }
      >
        <Radio.Group>
          <Radio value="external">{t('setup.modeExternal')}</Radio>
          <Radio value="self">{t('setup.modeSelf')}</Radio>
          <Radio value="demo">{t('setup.modeDemo')}</Radio>
        </Radio.Group>
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={loading}>
        {t('setup.initialize')}
      </Button>
      <Modal open={isModeHelpOpen} title={t('setup.modeHelpTitle')} footer={null} onCancel={() => setModeHelpOpen(false)}>
        <p>
          <b>{t('setup.modeExternal')}</b>: {t('setup.modeExternalHelp')}
        </p>
        <p>
          <b>{t('setup.modeSelf')}</b>: {t('setup.modeSelfHelp')}
        </p>
        <p>
          <b>{t('setup.modeDemo')}</b>: {t('setup.modeDemoHelp')}
        </p>
      </Modal>
    </Form>
  );
}
