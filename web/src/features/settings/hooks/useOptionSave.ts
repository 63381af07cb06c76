import { useTranslation } from 'react-i18next';
import { showError, showSuccess, showWarning } from '../../../lib/feedback';
import { useUpdateOptions } from '../api/update-options';

/** Saves a panel's changes with the spec's messages: nothing changed, saved, partial failure. */
export function useOptionSave() {
  const { t } = useTranslation();
  const { mutateAsync, isPending } = useUpdateOptions();
  const save = async (changes: Record<string, string>): Promise<boolean> => {
    if (Object.keys(changes).length === 0) {
      showWarning(t('settings.nothingChanged'));
      return false;
    }
    const result = await mutateAsync(changes);
    const reasons = [...new Set(result.messages.filter(Boolean))];
    if (result.failed.length === 0) showSuccess(t('settings.saved'));
    else if (result.attempted > 1) showError(t('settings.partialFailed'));
    else if (reasons.length === 0) showError(t('settings.saveFailed'));
    // The server's own reasons (e.g. a toggle whose settings are missing) follow the summary.
    for (const reason of reasons) showError(reason);
    return result.failed.length === 0;
  };
  return { save, isSaving: isPending };
}
