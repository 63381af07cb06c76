import { useQueryClient } from '@tanstack/react-query';
import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { feedback, showSuccess } from '../../../lib/feedback';
import { optionsQueryKey } from '../api/options';
import { resetModelRatios } from '../api/ops';

/** Restores the built-in model ratios and prices after a confirmation. */
export function ResetRatios() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const reset = () =>
    feedback.modal.confirm({
      title: t('settingsOps.resetRatios'),
      content: t('settingsOps.resetRatiosConfirm'),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      okButtonProps: { danger: true },
      onOk: async () => {
        await resetModelRatios();
        showSuccess(t('settingsOps.resetDone'));
        await queryClient.invalidateQueries({ queryKey: optionsQueryKey });
      },
    });
  return (
    <Button danger onClick={reset} style={{ marginBottom: 16 }}>
      {t('settingsOps.resetRatios')}
    </Button>
  );
}
