import { Form, InputNumber, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { quotaPerUnitOf, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useTransferAffQuota } from '../api/transfer-aff-quota';

/** Transfers invite earnings; the amount must be at least one quota unit. */
export function TransferModal({ open, available, onClose }: { open: boolean; available: number; onClose: () => void }) {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const minimum = quotaPerUnitOf(status ?? null);
  const [amount, setAmount] = useState<number | null>(available);
  const transfer = useTransferAffQuota();
  const submit = () => {
    if (!amount || amount < minimum) {
      showError(t('personal.transferMinimum') + renderQuota(minimum, status ?? null));
      return;
    }
    transfer.mutateAsync(amount).then(
      () => {
        showSuccess(t('personal.transferDone'));
        onClose();
      },
      () => undefined,
    );
  };
  return (
    <Modal
      open={open}
      title={t('personal.transfer')}
      onCancel={onClose}
      onOk={submit}
      confirmLoading={transfer.isPending}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
    >
      <Typography.Paragraph>{t('personal.transferAvailable', { amount: renderQuota(available, status ?? null) })}</Typography.Paragraph>
      <Form layout="vertical">
        <Form.Item label={t('personal.transferAmount')} extra={t('personal.transferMinimum') + renderQuota(minimum, status ?? null)}>
          <InputNumber min={0} max={available} precision={0} value={amount} onChange={setAmount} style={{ width: '100%' }} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
