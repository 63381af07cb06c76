import { Form, Input, Modal, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CountdownButton } from '../../../components/CountdownButton';
import { Turnstile } from '../../../components/Turnstile';
import { showError, showSuccess } from '../../../lib/feedback';
import { useTurnstile } from '../../../lib/use-turnstile';
import { useBindEmail } from '../api/bind-email';
import { useSendEmailCode } from '../api/send-email-code';

/** Email binding: email required ('请输入邮箱！'), code required ('请输入邮箱验证码！'). */
export function EmailBindModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const sendEmailCode = useSendEmailCode();
  const bindEmail = useBindEmail();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [loading, setLoading] = useState(false);
  const turnstile = useTurnstile();
  const sendCode = async () => {
    if (!email.trim()) {
      showError(t('personal.emailRequired'));
      return false;
    }
    if (!turnstile.isReady()) return false;
    try {
      await sendEmailCode.mutateAsync({ email: email.trim(), turnstile: turnstile.token });
      showSuccess(t('auth.codeSent'));
      return true;
    } catch {
      return false;
    }
  };
  const submit = async () => {
    if (!email.trim()) return showError(t('personal.emailRequired'));
    if (!code.trim()) return showError(t('personal.emailCodeRequired'));
    setLoading(true);
    try {
      await bindEmail.mutateAsync({ email: email.trim(), code: code.trim() });
      showSuccess(t('personal.emailBound'));
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
      title={t('personal.bindEmail')}
      onCancel={onClose}
      onOk={() => void submit()}
      confirmLoading={loading}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Form.Item label={t('auth.email')}>
          <Space.Compact style={{ width: '100%' }}>
            <Input
              value={email}
              onChange={(event) => setEmail(event.target.value)}
              placeholder="name@example.com"
              aria-label={t('auth.email')}
            />
            <CountdownButton onClick={sendCode}>{t('auth.getCode')}</CountdownButton>
          </Space.Compact>
        </Form.Item>
        <Form.Item label={t('auth.verificationCode')}>
          <Input value={code} onChange={(event) => setCode(event.target.value)} aria-label={t('auth.verificationCode')} />
        </Form.Item>
        {turnstile.isEnabled && <Turnstile siteKey={turnstile.siteKey} onToken={turnstile.onToken} />}
      </Form>
    </Modal>
  );
}
