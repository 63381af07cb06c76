import type { TFunction } from 'i18next';
import { ApiError } from '../../../lib/http';
import { showError } from '../../../lib/feedback';

/**
 * A passkey ceremony failed: the server's refusals were already shown by the http client; the
 * browser's own (the person cancelled, no passkey for this site, no WebAuthn) are told here.
 */
export function showPasskeyError(error: unknown, t: TFunction): void {
  if (error instanceof ApiError && error.shown) return;
  const name = error instanceof Error ? error.name : '';
  showError(name === 'NotAllowedError' || name === 'AbortError' ? t('twoFactor.passkeyCancelled') : t('twoFactor.passkeyFailed'));
}
