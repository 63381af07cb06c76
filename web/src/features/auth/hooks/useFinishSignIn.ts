import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { showSuccess, showWarning } from '../../../lib/feedback';
import type { LoginAnswer } from '@modelgate/shared';
import { userStore } from '../../../lib/user-store';
import { isSecondStepRequest } from '../api/second-step';

/**
 * The end of a sign-in's step (password, second step, passkey, third party). A user with a second
 * factor goes to the login page's second step (router state `secondStep`); a signed-in user is
 * stored and goes to /token, or, an admin who must still enrol a second factor, to the personal
 * settings' two-factor tab. Answers whether the user is now signed in.
 */
export function useFinishSignIn() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (answer: LoginAnswer): boolean => {
    if (isSecondStepRequest(answer)) {
      navigate('/login', { state: { secondStep: answer } });
      return false;
    }
    const { require_2fa_setup: mustEnrol, ...user } = { require_2fa_setup: false, ...answer };
    userStore.set(user);
    showSuccess(t('auth.loginSuccess'));
    if (mustEnrol === true) {
      showWarning(t('twoFactor.mustEnrol'));
      navigate('/personal?tab=two-factor');
    } else {
      navigate('/token');
    }
    return true;
  };
}
