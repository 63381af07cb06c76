import { useTranslation } from 'react-i18next';
import { TelegramWidget } from '../../../components/TelegramWidget';
import { useLoginWithTelegram } from '../api/login-with-telegram';
import { useFinishSignIn } from '../hooks/useFinishSignIn';

/** The chat-app login widget; its fields (and the console's lang) go to /api/oauth/telegram/login. */
export function TelegramLoginButton({ botName }: { botName: string }) {
  const { i18n } = useTranslation();
  const finishSignIn = useFinishSignIn();
  const login = useLoginWithTelegram();
  const onAuth = (fields: Record<string, string>) => {
    login
      .mutateAsync({ ...fields, lang: i18n.language })
      .then(finishSignIn)
      .catch(() => undefined);
  };
  return <TelegramWidget botName={botName} onAuth={onAuth} />;
}
