import { accountMessages, passwordMaxLength, passwordMinLength, updateSelfSchema } from '@modelgate/shared';
import { Form, Input, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { firstProblem } from '../../../lib/form-rules';
import { useUpdateSelf } from '../api/update-self';

export function PasswordModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ original_password: string; password: string; password2: string }>();
  const [loading, setLoading] = useState(false);
  const updateSelf = useUpdateSelf();
  const submit = async () => {
    const { original_password, password, password2 } = await form.validateFields();
    if (password !== password2) {
      showError(t('personal.passwordMismatch'));
      return;
    }
    const problem = firstProblem(updateSelfSchema, { original_password, password }, accountMessages);
    if (problem) {
      const key = problem.key === 'passwordTooShort' || problem.key === 'passwordTooLong' ? `auth.${problem.key}` : null;
      showError(key ? t(key, { defaultValue: problem.message }) : problem.message);
      return;
    }
    setLoading(true);
    try {
      await updateSelf.mutateAsync({ original_password, password });
      showSuccess(t('personal.passwordChanged'));
      form.resetFields();
      onClose();
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };
  return (
    <Modal
      open={open}
      title={t('personal.changePassword')}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={loading}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      destroyOnHidden
    >
      <Form form={form} layout="vertical" requiredMark={false}>
        <Form.Item
          name="original_password"
          label={t('personal.originalPassword')}
          rules={[{ required: true, message: t('personal.originalPasswordRequired') }]}
        >
          <Input.Password maxLength={passwordMaxLength} autoComplete="current-password" />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('personal.newPassword')}
          rules={[
            { required: true, message: t('auth.passwordRequired') },
            { min: passwordMinLength, message: t('auth.passwordTooShort') },
          ]}
        >
          <Input.Password maxLength={passwordMaxLength} autoComplete="new-password" placeholder={t('auth.passwordPlaceholder')} />
        </Form.Item>
        <Form.Item
          name="password2"
          label={t('personal.confirmNewPassword')}
          rules={[{ required: true, message: t('auth.confirmPasswordRequired') }]}
        >
          <Input.Password maxLength={passwordMaxLength} autoComplete="new-password" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
