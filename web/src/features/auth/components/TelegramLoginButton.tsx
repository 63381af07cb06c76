import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { TelegramWidget } from '../../../components/TelegramWidget';
import { showSuccess } from '../../../lib/feedback';
import { userStore } from '../../../lib/user-store';
import { loginWithTelegram } from '../api/auth';

/** The chat-app login widget; its fields (and the console's lang) go to /api/oauth/telegram/login. */
export function TelegramLoginButton({ botName }: { botName: string }) {
  const navigate = useNavigate();
  const { t, i18n } = useTranslation();
  const onAuth = (fields: Record<string, string>) => {
    loginWithTelegram({ ...fields, lang: i18n.language })
      .then((user) => {
        userStore.set(user);
        showSuccess(t('auth.loginSuccess'));
        navigate('/token');
      })
      .catch(() => undefined);
  };
  return <TelegramWidget botName={botName} onAuth={onAuth} />;
}
