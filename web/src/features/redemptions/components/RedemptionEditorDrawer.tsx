import { redemptionBatchMax } from '@modelgate/shared';
import { useQueryClient } from '@tanstack/react-query';
import { Form, Input, InputNumber } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { showError, showSuccess } from '../../../lib/feedback';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { createRedemptions, redemptionsQueryKey, updateRedemption, useRedemption } from '../api/redemptions';
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
  const queryClient = useQueryClient();
  const { data: status } = useStatus();
  const existing = useRedemption(open ? redemptionId : null);
  const [isSaving, setSaving] = useState(false);
  const isCreate = redemptionId === null;
  const quota = Form.useWatch('quota', form);

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue(isCreate || !existing.data ? newRedemptionForm : { name: existing.data.name, quota: existing.data.quota, count: 1 });
  }, [open, isCreate, existing.data, form]);

  const save = async () => {
    const result = redemptionPayloadOf({ ...newRedemptionForm, ...form.getFieldsValue(true) }, (value) => renderQuota(value, status ?? null));
    if ('problem' in result) {
      showError(t(`redemptions.msg.${result.problem}`));
      return;
    }
    setSaving(true);
    try {
      if (isCreate) {
        const keys = await createRedemptions(result.payload);
        showSuccess(t('redemptions.msg.created'));
        onCreated(keys);
      } else {
        await updateRedemption({ id: redemptionId, name: result.payload.name, quota: result.payload.quota });
        showSuccess(t('redemptions.msg.updated'));
      }
      await queryClient.invalidateQueries({ queryKey: redemptionsQueryKey });
      onClose();
    } catch {
      // shown by the http client
    } finally {
      setSaving(false);
    }
  };

  return (
    <EditorDrawer title={isCreate ? t('redemptions.createTitle') : t('redemptions.editTitle')} open={open} onClose={onClose} onSubmit={() => void save()} isSaving={isSaving} isLoading={!isCreate && existing.isLoading} size={440}>
      <Form form={form} layout="vertical" initialValues={newRedemptionForm}>
        <Form.Item name="name" label={t('redemptions.field.name')} extra={t('redemptions.field.nameHelp')}>
          <Input aria-label={t('redemptions.field.name')} placeholder={renderQuota(Number(quota) || 0, status ?? null)} />
        </Form.Item>
        <Form.Item name="quota" label={t('redemptions.field.quota')} extra={t('redemptions.field.quotaHelp', { value: renderQuota(Number(quota) || 0, status ?? null) })}>
          <InputNumber aria-label={t('redemptions.field.quota')} style={{ width: '100%' }} />
        </Form.Item>
        {isCreate && (
          <Form.Item name="count" label={t('redemptions.field.count')} extra={t('redemptions.field.countHelp', { max: redemptionBatchMax })}>
            <InputNumber aria-label={t('redemptions.field.count')} style={{ width: '100%' }} />
          </Form.Item>
        )}
      </Form>
    </EditorDrawer>
  );
}
