import { Role, UserStatus } from '@modelgate/shared';
import { Button, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ManageAction, User } from '../api/users';
import { useManageUser } from '../hooks/useManageUser';

/** Promote, demote, disable, enable, edit and cancel, each confirmed first. */
export function UserRowActions({ user, onEdit }: { user: User; onEdit: (id: number) => void }) {
  const { t } = useTranslation();
  const manage = useManageUser();
  const run = (action: ManageAction) => manage.mutateAsync({ id: user.id, action }).catch(() => undefined);
  const confirmed = (action: ManageAction, label: string, danger = false) => (
    <Popconfirm
      key={action}
      title={t('users.confirmTitle', { action: label })}
      description={t('users.confirmText', { action: label, name: user.username })}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      okButtonProps={{ danger }}
      onConfirm={() => run(action)}
    >
      <Button size="small" type="link" danger={danger}>
        {label}
      </Button>
    </Popconfirm>
  );
  return (
    <Space size={0} wrap>
      {user.role < Role.admin && confirmed('promote', t('users.promote'))}
      {user.role >= Role.admin && user.role < Role.root && confirmed('demote', t('users.demote'))}
      {user.status === UserStatus.enabled && confirmed('disable', t('users.disable'), true)}
      {user.status === UserStatus.disabled && confirmed('enable', t('users.enable'))}
      <Button size="small" type="link" onClick={() => onEdit(user.id)}>
        {t('common.edit')}
      </Button>
      {confirmed('delete', t('users.cancelAccount'), true)}
    </Space>
  );
}
