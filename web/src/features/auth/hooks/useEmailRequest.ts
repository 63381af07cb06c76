import type { FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import type { useTurnstile } from '../../../lib/use-turnstile';

/**
 * The click handler of a countdown button that mails something to the form's email field
 * (verification code, password reset): email required, bot check ready, then the request.
 * Resolves true when the mail was sent, which starts the button's retry lock.
 */
export function useEmailRequest(
  form: FormInstance,
  turnstile: ReturnType<typeof useTurnstile>,
  send: (email: string, turnstileToken: string) => Promise<unknown>,
  sentKey: string,
) {
  const { t } = useTranslation();
  return async (): Promise<boolean> => {
    const email = (form.getFieldValue('email') as string | undefined)?.trim();
    if (!email) {
      showError(t('auth.emailRequired'));
      return false;
    }
    if (!turnstile.isReady()) return false;
    try {
      await send(email, turnstile.token);
      showSuccess(t(sentKey));
      return true;
    } catch {
      return false;
    }
  };
}
