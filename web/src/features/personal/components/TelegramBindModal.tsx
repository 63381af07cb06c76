import { useQueryClient } from '@tanstack/react-query';
import { Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { TelegramWidget } from '../../../components/TelegramWidget';
import { showSuccess } from '../../../lib/feedback';
import { bindTelegram } from '../api/bindings';
import { selfQueryKey } from '../api/personal';

/** Binds a Telegram account through the login widget of the configured bot. */
export function TelegramBindModal({ open, botName, onClose }: { open: boolean; botName: string; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const onAuth = (fields: Record<string, string>) => {
    bindTelegram(fields)
      .then(async () => {
        showSuccess(t('oauth.telegramBound'));
        onClose();
        await queryClient.invalidateQueries({ queryKey: selfQueryKey });
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
