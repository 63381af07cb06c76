import { Image, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { useBindWeChat } from '../api/bind-wechat';

export function WeChatBindModal({ open, qrcode, onClose }: { open: boolean; qrcode: string; onClose: () => void }) {
  const { t } = useTranslation();
  const bind = useBindWeChat();
  const [code, setCode] = useState('');
  const [loading, setLoading] = useState(false);
  const submit = async () => {
    setLoading(true);
    try {
      await bind.mutateAsync(code.trim());
      showSuccess(t('personal.weChatBound'));
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
      title={t('personal.bindWeChat')}
      onCancel={onClose}
      onOk={() => void submit()}
      okButtonProps={{ disabled: !code.trim() }}
      confirmLoading={loading}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
    >
      <div style={{ textAlign: 'center' }}>
        {qrcode && <Image src={qrcode} width={200} preview={false} alt="" />}
        <Typography.Paragraph type="secondary">{t('auth.weChatHint')}</Typography.Paragraph>
        <Input value={code} onChange={(event) => setCode(event.target.value)} placeholder={t('auth.verificationCode')} />
      </div>
    </Modal>
  );
}
