import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showInfo } from './feedback';
import { useStatus } from './status';

/** Bot-check state: whether it is on, the token, and a guard that asks to retry before the token arrives. */
export function useTurnstile() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const [token, setToken] = useState('');
  const isEnabled = !!status?.turnstile_check && !!status.turnstile_site_key;
  const onToken = useCallback((value: string) => setToken(value), []);
  const isReady = () => {
    if (isEnabled && !token) {
      showInfo(t('auth.turnstileWait'));
      return false;
    }
    return true;
  };
  return { isEnabled, siteKey: status?.turnstile_site_key ?? '', token, onToken, isReady };
}
