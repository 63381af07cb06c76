import { passwordMaxLength, usernameMaxLength } from '@modelgate/shared';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Drawer, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { createUser, usersQueryKey, type CreateUserPayload } from '../api/users';

/** Add user: username and password required ('用户名和密码不能为空！'), display name optional. */
export function AddUserDrawer({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const [form] = Form.useForm<CreateUserPayload>();
  const queryClient = useQueryClient();
  const create = useMutation({
    mutationFn: createUser,
    onSuccess: async () => {
      showSuccess(t('users.created'));
      form.resetFields();
      onClose();
      await queryClient.invalidateQueries({ queryKey: usersQueryKey });
    },
  });
  const submit = (values: CreateUserPayload) => {
    const username = values.username?.trim() ?? '';
    if (!username || !values.password) {
      showError(t('users.usernamePasswordRequired'));
      return;
    }
    create.mutate({ username, password: values.password, display_name: values.display_name?.trim() || username });
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
