import { useEffect, useRef } from 'react';

declare global {
  interface Window {
    onTelegramAuth?: (user: Record<string, string | number>) => void;
  }
}

/**
 * The chat-app login widget (telegram.org's script) for `botName`; `onAuth` gets the signed fields
 * as strings, ready for /api/oauth/telegram/login or /bind.
 */
export function TelegramWidget({ botName, onAuth }: { botName: string; onAuth: (fields: Record<string, string>) => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const onAuthRef = useRef(onAuth);
  useEffect(() => {
    onAuthRef.current = onAuth;
  }, [onAuth]);

  useEffect(() => {
    window.onTelegramAuth = (user) => {
      const fields: Record<string, string> = {};
      for (const [key, value] of Object.entries(user)) fields[key] = String(value);
      onAuthRef.current(fields);
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
  }, [botName]);

  return <div ref={ref} style={{ display: 'flex', justifyContent: 'center' }} />;
}
