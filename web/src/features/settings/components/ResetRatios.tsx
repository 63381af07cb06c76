import { Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { feedback, showSuccess } from '../../../lib/feedback';
import { useResetModelRatios } from '../api/reset-model-ratios';

/** Restores the built-in model ratios and prices after a confirmation. */
export function ResetRatios() {
  const { t } = useTranslation();
  const { mutateAsync: resetModelRatios } = useResetModelRatios();
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
      },
    });
  return (
    <Button danger onClick={reset} style={{ marginBottom: 16 }}>
      {t('settingsOps.resetRatios')}
    </Button>
  );
}
