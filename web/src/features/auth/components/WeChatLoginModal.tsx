import { Button, Image, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLoginWithWeChat } from '../api/login-with-wechat';
import { useFinishSignIn } from '../hooks/useFinishSignIn';

/** Messaging-app QR login: scan, then type the code the official account replies with (valid 3 minutes). */
export function WeChatLoginModal({ open, qrcode, onClose }: { open: boolean; qrcode: string; onClose: () => void }) {
  const { t } = useTranslation();
  const finishSignIn = useFinishSignIn();
  const login = useLoginWithWeChat();
  const [code, setCode] = useState('');
  const [loading, setLoading] = useState(false);
  const submit = async () => {
    setLoading(true);
    try {
      const answer = await login.mutateAsync(code.trim());
      onClose();
      finishSignIn(answer);
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };
  return (
    <Modal open={open} title={t('auth.withWeChat')} onCancel={onClose} footer={null}>
      <div style={{ textAlign: 'center' }}>
        {qrcode && <Image src={qrcode} width={200} preview={false} alt="" />}
        <Typography.Paragraph type="secondary">{t('auth.weChatHint')}</Typography.Paragraph>
        <Input
          value={code}
          onChange={(event) => setCode(event.target.value)}
          placeholder={t('auth.verificationCode')}
          style={{ marginBottom: 12 }}
        />
        <Button type="primary" block loading={loading} disabled={!code.trim()} onClick={() => void submit()}>
          {t('auth.loginButton')}
        </Button>
      </div>
    </Modal>
  );
}
