import { redemptionBatchMax } from '@modelgate/shared';
import { Form, Input, InputNumber } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { showError, showSuccess } from '../../../lib/feedback';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useCreateRedemptions } from '../api/create-redemptions';
import { useRedemption } from '../api/get-redemption';
import { useUpdateRedemption } from '../api/update-redemption';
import { newRedemptionForm, redemptionPayloadOf, type RedemptionFormValues } from '../hooks/redemption-form';

interface Props {
  open: boolean;
  redemptionId: number | null;
  onClose: () => void;
  onCreated: (keys: string[]) => void;
}

/** Create codes (name, quota, count) or edit one unused code (name, quota). */
export function RedemptionEditorDrawer({ open, redemptionId, onClose, onCreated }: Props) {
  const { t } = useTranslation();
  const [form] = Form.useForm<RedemptionFormValues>();
  const createRedemptions = useCreateRedemptions();
  const updateRedemption = useUpdateRedemption();
  const { data: status } = useStatus();
  const existing = useRedemption(open ? redemptionId : null);
  const isCreate = redemptionId === null;
  const quota = Form.useWatch('quota', form);

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(
      isCreate || !existing.data ? newRedemptionForm : { name: existing.data.name, quota: existing.data.quota, count: 1 },
    );
  }, [open, isCreate, existing.data, form]);

  const save = async () => {
    const result = redemptionPayloadOf(
      { ...newRedemptionForm, ...form.getFieldsValue(true) },
      (value) => renderQuota(value, status ?? null),
      isCreate,
    );
    if ('problem' in result) {
      const { key, message } = result.problem;
      showError(key ? t(`redemptions.msg.${key}`, { defaultValue: message }) : message);
      return;
    }
    try {
      if (isCreate) {
        const keys = await createRedemptions.mutateAsync(result.payload);
        showSuccess(t('redemptions.msg.created'));
        onCreated(keys);
      } else {
        await updateRedemption.mutateAsync({ id: redemptionId, name: result.payload.name, quota: result.payload.quota });
        showSuccess(t('redemptions.msg.updated'));
      }
      onClose();
    } catch {
      // shown by the http client
    }
  };
  const isSaving = createRedemptions.isPending || updateRedemption.isPending;

  return (
    <EditorDrawer
      title={isCreate ? t('redemptions.createTitle') : t('redemptions.editTitle')}
      open={open}
      onClose={onClose}
      onSubmit={() => void save()}
      isSaving={isSaving}
      isLoading={!isCreate && existing.isLoading}
      size={440}
    >
      <Form form={form} layout="vertical" initialValues={newRedemptionForm}>
        <Form.Item name="name" label={t('redemptions.field.name')} extra={t('redemptions.field.nameHelp')}>
          <Input aria-label={t('redemptions.field.name')} placeholder={renderQuota(Number(quota) || 0, status ?? null)} />
        </Form.Item>
        <Form.Item
          name="quota"
          label={t('redemptions.field.quota')}
          extra={t('redemptions.field.quotaHelp', { value: renderQuota(Number(quota) || 0, status ?? null) })}
        >
          <InputNumber aria-label={t('redemptions.field.quota')} style={{ width: '100%' }} />
        </Form.Item>
        {isCreate && (
          <Form.Item
            name="count"
            label={t('redemptions.field.count')}
            extra={t('redemptions.field.countHelp', { max: redemptionBatchMax })}
          >
            <InputNumber aria-label={t('redemptions.field.count')} style={{ width: '100%' }} />
          </Form.Item>
        )}
      </Form>
    </EditorDrawer>
  );
}
