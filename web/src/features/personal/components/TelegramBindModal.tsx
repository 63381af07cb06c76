import { Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { TelegramWidget } from '../../../components/TelegramWidget';
import { showSuccess } from '../../../lib/feedback';
import { useBindTelegram } from '../api/bind-telegram';

/** Binds a Telegram account through the login widget of the configured bot. */
export function TelegramBindModal({ open, botName, onClose }: { open: boolean; botName: string; onClose: () => void }) {
  const { t } = useTranslation();
  const bind = useBindTelegram();
  const onAuth = (fields: Record<string, string>) => {
    bind
      .mutateAsync(fields)
      .then(() => {
        showSuccess(t('oauth.telegramBound'));
        onClose();
      })
      .catch(() => undefined);
  };
  return (
    <Modal open={open} title={t('oauth.bindTelegram')} onCancel={onClose} footer={null} destroyOnHidden>
      <Typography.Paragraph type="secondary">{t('oauth.telegramHint')}</Typography.Paragraph>
      {open && botName && <TelegramWidget botName={botName} onAuth={onAuth} />}
    </Modal>
  );
}
