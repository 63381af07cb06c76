import { passwordMaxLength, usernameMaxLength } from '@modelgate/shared';
import { Button, Drawer, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { useCreateUser } from '../api/create-user';
import { createUserPayloadOf } from '../hooks/user-form';

interface AddValues {
  username?: string;
  display_name?: string;
  password?: string;
}

/** Add user: the payload checked by createUserSchema ('用户名和密码不能为空！' first), display name optional. */
export function AddUserDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<AddValues>();
  const create = useCreateUser();
  const submit = (values: AddValues) => {
    const result = createUserPayloadOf(values);
    if ('problem' in result) {
      const { key, message } = result.problem;
      showError(key ? t(`users.${key}`, { defaultValue: message }) : message);
      return;
    }
    create.mutateAsync(result.payload).then(
      () => {
        showSuccess(t('users.created'));
        form.resetFields();
        onClose();
      },
      () => undefined,
    );
  };
  return (
    <Drawer
      title={t('users.add')}
      open={open}
      onClose={onClose}
      size={420}
      destroyOnHidden
      footer={
        <Space style={{ float: 'right' }}>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
          <Button type="primary" loading={create.isPending} onClick={() => form.submit()}>
            {t('common.submit')}
          </Button>
        </Space>
      }
    >
      <Form form={form} layout="vertical" onFinish={submit} requiredMark={false}>
        <Form.Item name="username" label={t('users.username')}>
          <Input maxLength={usernameMaxLength} autoComplete="off" placeholder={t('users.usernamePlaceholder')} />
        </Form.Item>
        <Form.Item name="display_name" label={t('users.displayName')}>
          <Input placeholder={t('users.displayNamePlaceholder')} />
        </Form.Item>
        <Form.Item name="password" label={t('users.password')}>
          <Input.Password maxLength={passwordMaxLength} autoComplete="new-password" placeholder={t('users.passwordPlaceholder')} />
        </Form.Item>
      </Form>
    </Drawer>
  );
}
