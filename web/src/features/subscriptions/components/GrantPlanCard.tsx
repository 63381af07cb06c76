import type { Plan } from '@modelgate/shared';
import { Button, Card, Form, InputNumber, Select, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { useGrantPlan } from '../api/grant-plan';

/** An admin gives a user a plan for some periods, without payment. */
export function GrantPlanCard({ plans }: { plans: Plan[] }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<{ user_id: number; plan_id: number; periods: number }>();
  const grantPlan = useGrantPlan();
  const grant = async () => {
    const values = await form.validateFields();
    try {
      await grantPlan.mutateAsync(values);
      showSuccess(t('subscriptions.admin.granted'));
      form.resetFields();
    } catch {
      // shown by the http client
    }
  };
  return (
    <Card title={t('subscriptions.admin.grantTitle')}>
      <Form form={form} layout="inline" initialValues={{ periods: 1 }}>
        <Space wrap>
          <Form.Item name="user_id" label={t('subscriptions.admin.userId')} rules={[{ required: true }]}>
            <InputNumber min={1} precision={0} />
          </Form.Item>
          <Form.Item name="plan_id" label={t('subscriptions.admin.plan')} rules={[{ required: true }]}>
            <Select style={{ width: 200 }} options={plans.map((plan) => ({ value: plan.id, label: plan.name }))} />
          </Form.Item>
          <Form.Item name="periods" label={t('subscriptions.admin.periods')} rules={[{ required: true }]}>
            <InputNumber min={1} max={120} precision={0} />
          </Form.Item>
          <Button type="primary" loading={grantPlan.isPending} onClick={() => void grant()}>
            {t('subscriptions.admin.grant')}
          </Button>
        </Space>
      </Form>
    </Card>
  );
}
