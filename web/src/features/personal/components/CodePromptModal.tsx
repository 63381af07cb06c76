import { Form, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { secondFactorCodeRule } from '../../../lib/second-factor-code';

/** Asks for a current code (TOTP, or a recovery code where `allowRecovery`) before a change that needs one. */
export function CodePromptModal({
  open,
  title,
  hint,
  allowRecovery,
  onSubmit,
  onClose,
}: {
  open: boolean;
  title: string;
  hint: string;
  allowRecovery: boolean;
  /** Resolves when the change is done; a rejection keeps the modal open (the http client showed why). */
  onSubmit: (code: string) => Promise<void>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ code: string }>();
  const [loading, setLoading] = useState(false);
  const submit = async () => {
    const { code } = await form.validateFields();
    setLoading(true);
    try {
      await onSubmit(code.trim());
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
      title={title}
      onCancel={onClose}
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={loading}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{hint}</Typography.Paragraph>
      <Form form={form} layout="vertical" requiredMark={false} onFinish={() => void submit()}>
        <Form.Item name="code" label={t('twoFactor.code')} rules={[secondFactorCodeRule(t)]}>
          <Input
            autoFocus
            autoComplete="one-time-code"
            maxLength={32}
            placeholder={allowRecovery ? t('twoFactor.codePlaceholder') : t('twoFactor.totpPlaceholder')}
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
