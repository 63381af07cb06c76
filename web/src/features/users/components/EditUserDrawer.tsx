import { passwordMaxLength, passwordMinLength, usernameMaxLength } from '@modelgate/shared';
import { Button, Descriptions, Drawer, Form, Input, InputNumber, Select, Space, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { useGroups } from '../../../lib/api/groups';
import { useUser } from '../api/get-user';
import { useUpdateUser } from '../api/update-user';
import { updateUserPayloadOf } from '../hooks/user-form';
import { SecondFactorsReset } from './SecondFactorsReset';
import { UserSubscriptions } from './UserSubscriptions';

interface EditValues {
  username: string;
  display_name: string;
  password?: string;
  group: string;
  quota: number;
}

const boundFields = ['email', 'github_id', 'oidc_id', 'wechat_id', 'telegram_id', 'linux_do_id'] as const;

/** Edit user: group and quota (sent as an integer), checked by updateUserSchema; bound accounts are read-only. */
export function EditUserDrawer({ userId, onClose }: { userId: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<EditValues>();
  const user = useUser(userId);
  const groups = useGroups();

  useEffect(() => {
    if (user.data) form.setFieldsValue({ ...user.data, password: '' });
  }, [form, user.data]);

  const save = useUpdateUser();
  const submit = (values: EditValues) => {
    if (userId === null) return;
    const result = updateUserPayloadOf(userId, values);
    if ('problem' in result) {
      const { key, message } = result.problem;
      showError(key ? t(`users.${key}`, { defaultValue: message }) : message);
      return;
    }
    save.mutateAsync(result.payload).then(
      () => {
        showSuccess(t('users.updated'));
        onClose();
      },
      () => undefined,
    );
  };

  const data = user.data;
  return (
    <Drawer
      title={t('users.edit')}
      open={userId !== null}
      onClose={onClose}
      size={460}
      destroyOnHidden
      footer={
        <Space style={{ float: 'right' }}>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="primary" loading={save.isPending} onClick={() => form.submit()}>
            {t('common.submit')}
          </Button>
        </Space>
      }
    >
      {user.isPending && userId !== null ? (
        <Spin />
      ) : (
        <Form form={form} layout="vertical" onFinish={submit} requiredMark={false}>
          <Form.Item
            name="username"
            label={t('users.username')}
            rules={[{ required: true, whitespace: true, message: t('users.usernameRequired') }]}
          >
            <Input maxLength={usernameMaxLength} />
          </Form.Item>
          <Form.Item name="display_name" label={t('users.displayName')}>
            <Input />
          </Form.Item>
          <Form.Item name="password" label={t('users.password')} rules={[{ min: passwordMinLength, message: t('users.passwordHint') }]}>
            <Input.Password maxLength={passwordMaxLength} autoComplete="new-password" placeholder={t('users.passwordHint')} />
          </Form.Item>
          <Form.Item name="group" label={t('users.group')}>
            <Select options={(groups.data ?? [data?.group ?? 'default']).map((group) => ({ value: group, label: group }))} />
          </Form.Item>
          <Form.Item name="quota" label={t('users.quota')}>
            <InputNumber min={0} precision={0} style={{ width: '100%' }} />
          </Form.Item>
          <Descriptions size="small" column={1} bordered title={t('users.bindings')}>
            {boundFields.map((field) => (
              <Descriptions.Item key={field} label={t(`users.bound.${field}`)}>
                {data?.[field] || t('users.notBound')}
              </Descriptions.Item>
            ))}
          </Descriptions>
          {data && <SecondFactorsReset user={data} />}
          {data && <UserSubscriptions userId={data.id} />}
        </Form>
      )}
    </Drawer>
  );
}
