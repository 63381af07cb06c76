import { periodUnits, planNameMaxLength, type Plan } from '@modelgate/shared';
import { Form, Input, InputNumber, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { EditorDrawer } from '../../../components/EditorDrawer';
import { showError, showSuccess } from '../../../lib/feedback';
import { useCreatePlan } from '../api/create-plan';
import { useUpdatePlan } from '../api/update-plan';
import { blankPlan, planPayloadOf, type PlanFormValues } from '../hooks/plan-form';

/** Create or edit a plan: its price per period, the quota each period grants, what it covers. */
export function PlanEditorDrawer({ plan, open, onClose }: { plan: Plan | null; open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<PlanFormValues>();
  const createPlan = useCreatePlan();
  const updatePlan = useUpdatePlan();
  const submit = async () => {
    const values = await form.validateFields();
    const result = planPayloadOf(values, plan?.id ?? null);
    if ('problem' in result) {
      const { key, message } = result.problem;
      showError(key ? t(`subscriptions.admin.${key}`, { defaultValue: message }) : message);
      return;
    }
    try {
      if (plan) await updatePlan.mutateAsync({ ...result.payload, id: plan.id });
      else await createPlan.mutateAsync(result.payload);
      showSuccess(t('subscriptions.admin.saved'));
      onClose();
    } catch {
      // shown by the http client
    }
  };
  const isSaving = createPlan.isPending || updatePlan.isPending;
  return (
    <EditorDrawer
      title={plan ? t('subscriptions.admin.edit') : t('subscriptions.admin.create')}
      open={open}
      onClose={onClose}
      onSubmit={() => void submit()}
      isSaving={isSaving}
      size={520}
    >
      <Form form={form} layout="vertical" initialValues={plan ?? blankPlan} preserve={false}>
        <Form.Item
          name="name"
          label={t('subscriptions.admin.name')}
          rules={[{ required: true, whitespace: true, max: planNameMaxLength, message: t('subscriptions.admin.nameRequired') }]}
        >
          <Input />
        </Form.Item>
        <Form.Item name="description" label={t('subscriptions.admin.description')}>
          <Input.TextArea autoSize={{ minRows: 2 }} maxLength={255} />
        </Form.Item>
        <Form.Item
          name="price"
          label={t('subscriptions.admin.price')}
          extra={t('subscriptions.admin.priceHint')}
          rules={[{ required: true }]}
        >
          <InputNumber min={0} step={0.01} precision={2} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item label={t('subscriptions.admin.period')} required>
          <Form.Item name="period_count" noStyle rules={[{ required: true }]}>
            <InputNumber aria-label={t('subscriptions.admin.periodCount')} min={1} max={365} precision={0} style={{ width: 120 }} />
          </Form.Item>
          <Form.Item name="period_unit" noStyle>
            <Select
              aria-label={t('subscriptions.admin.periodUnit')}
              style={{ width: 140, marginLeft: 8 }}
              options={periodUnits.map((value) => ({ value, label: t(`subscriptions.unit.${value}`) }))}
            />
          </Form.Item>
        </Form.Item>
        <Form.Item
          name="quota"
          label={t('subscriptions.admin.quota')}
          extra={t('subscriptions.admin.quotaHint')}
          rules={[{ required: true, type: 'integer', min: 1, message: t('subscriptions.admin.quotaRequired') }]}
        >
          <InputNumber min={1} precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="models" label={t('subscriptions.admin.models')} extra={t('subscriptions.admin.coverHint')}>
          <Select mode="tags" tokenSeparators={[',']} />
        </Form.Item>
        <Form.Item name="groups" label={t('subscriptions.admin.groups')}>
          <Select mode="tags" tokenSeparators={[',']} />
        </Form.Item>
        <Form.Item name="sort_order" label={t('subscriptions.admin.sortOrder')}>
          <InputNumber precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="enabled" label={t('subscriptions.admin.enabled')} valuePropName="checked">
          <Switch />
        </Form.Item>
      </Form>
    </EditorDrawer>
  );
}
