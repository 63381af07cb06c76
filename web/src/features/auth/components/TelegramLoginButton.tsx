import { useTranslation } from 'react-i18next';
import { TelegramWidget } from '../../../components/TelegramWidget';
import { loginWithTelegram } from '../api/auth';
import { useFinishSignIn } from '../hooks/useFinishSignIn';

/** The chat-app login widget; its fields (and the console's lang) go to /api/oauth/telegram/login. */
export function TelegramLoginButton({ botName }: { botName: string }) {
  const { i18n } = useTranslation();
  const finishSignIn = useFinishSignIn();
  const onAuth = (fields: Record<string, string>) => {
    loginWithTelegram({ ...fields, lang: i18n.language })
      .then(finishSignIn)
      .catch(() => undefined);
  };
  return <TelegramWidget botName={botName} onAuth={onAuth} />;
}
