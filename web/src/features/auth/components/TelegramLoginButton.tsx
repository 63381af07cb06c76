import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { userStore } from '../../../lib/user-store';
import { loginWithTelegram } from '../api/auth';

declare global {
  interface Window {
    onTelegramAuth?: (user: Record<string, string | number>) => void;
  }
}

/** The chat-app login widget; its fields are passed to /api/oauth/telegram/login. */
export function TelegramLoginButton({ botName }: { botName: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const navigate = useNavigate();
  const { t, i18n } = useTranslation();

  useEffect(() => {
    window.onTelegramAuth = (fields) => {
      const query: Record<string, string> = { lang: i18n.language };
      for (const [key, value] of Object.entries(fields)) query[key] = String(value);
      loginWithTelegram(query)
        .then((user) => {
          userStore.set(user);
          showSuccess(t('auth.loginSuccess'));
          navigate('/');
        })
        .catch(() => undefined);
    };
    const script = document.createElement('script');
    script.src = 'https://telegram.org/js/telegram-widget.js?22';
    script.async = true;
    script.setAttribute('data-telegram-login', botName);
    script.setAttribute('data-size', 'large');
    script.setAttribute('data-onauth', 'onTelegramAuth(user)');
    const container = ref.current;
    container?.appendChild(script);
    return () => {
      container?.replaceChildren();
      delete window.onTelegramAuth;
    };
  }, [botName, i18n.language, navigate, t]);

  return <div ref={ref} style={{ display: 'flex', justifyContent: 'center' }} />;
}
