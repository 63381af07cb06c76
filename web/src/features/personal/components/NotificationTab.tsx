import { AutoComplete, Button, Form, Input, Radio } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import type { SelfUser } from '@modelgate/shared';
import { useUpdateUserSetting } from '../api/update-user-setting';
import { parseUserSetting, type UserSetting } from '../hooks/user-setting';

const thresholdPresets = [
  { value: '100000', label: '100000 (0.2$)' },
  { value: '500000', label: '500000 (1$)' },
  { value: '1000000', label: '1000000 (5$)' },
  { value: '5000000', label: '5000000 (10$)' },
];

type FormValues = Omit<UserSetting, 'quota_warning_threshold'> & { quota_warning_threshold: string };

/** Quota warnings by email or webhook (https only; POSTs carry the secret as a bearer header). */
export function NotificationTab({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const initial = parseUserSetting(user.setting);
  const [form] = Form.useForm<FormValues>();
  const notifyType = Form.useWatch('notify_type', form) ?? initial.notify_type;
  const [loading, setLoading] = useState(false);
  const updateUserSetting = useUpdateUserSetting();
  const submit = async (values: FormValues) => {
    setLoading(true);
    try {
      await updateUserSetting.mutateAsync({ ...initial, ...values, quota_warning_threshold: Number(values.quota_warning_threshold) });
      showSuccess(t('personal.notifySaved'));
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };
  return (
    <Form
      form={form}
      layout="vertical"
      initialValues={{ ...initial, quota_warning_threshold: String(initial.quota_warning_threshold) }}
      onFinish={(values) => void submit(values)}
    >
      <Form.Item name="notify_type" label={t('personal.notifyType')}>
        <Radio.Group
          options={[
            { value: 'email', label: t('personal.notifyEmail') },
            { value: 'webhook', label: t('personal.notifyWebhook') },
          ]}
        />
      </Form.Item>
      <Form.Item
        name="quota_warning_threshold"
        label={t('personal.threshold')}
        extra={t('personal.thresholdHint')}
        rules={[{ required: true, pattern: /^\d+$/, message: t('personal.thresholdInvalid') }]}
      >
        <AutoComplete options={thresholdPresets} />
      </Form.Item>
      {notifyType === 'email' ? (
        <Form.Item
          name="notification_email"
          label={t('personal.notificationEmail')}
          extra={t('personal.notificationEmailHint')}
          rules={[{ type: 'email', message: t('auth.emailInvalid') }]}
        >
          <Input placeholder="name@example.com" />
        </Form.Item>
      ) : (
        <>
          <Form.Item
            name="webhook_url"
            label={t('personal.webhookUrl')}
            extra={t('personal.webhookHint')}
            rules={[{ required: true, pattern: /^https:\/\/\S+$/i, message: t('personal.webhookHttps') }]}
          >
            <Input placeholder="https://example.com/webhook" />
          </Form.Item>
          <Form.Item name="webhook_secret" label={t('personal.webhookSecret')}>
            <Input.Password autoComplete="off" />
          </Form.Item>
        </>
      )}
      <Button type="primary" htmlType="submit" loading={loading}>
        {t('common.save')}
      </Button>
    </Form>
  );
}
