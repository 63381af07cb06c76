import { Button, Popconfirm, Space, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../../../lib/user-store';
import type { AdminUser, ManageAction } from '@modelgate/shared';
import { showSuccess } from '../../../lib/feedback';
import { isCancelled } from '../api/get-users';
import { useManageUser } from '../api/manage-user';
import { userRowAbilities } from './user-actions';

/** Promote, demote, disable, enable, edit and cancel, each confirmed first; only those the signed-in role may do. */
export function UserRowActions({ user, onEdit }: { user: AdminUser; onEdit: (id: number) => void }) {
  const { t } = useTranslation();
  const manage = useManageUser();
  const me = useCurrentUser();
  const { actions, canEdit } = userRowAbilities(me ?? { id: 0, role: 0 }, { ...user, isCancelled: isCancelled(user) });
  const can = (action: ManageAction) => actions.includes(action);
  const run = (action: ManageAction) =>
    manage.mutateAsync({ id: user.id, action }).then(
      () => showSuccess(t('users.actionDone')),
      () => undefined,
    );
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
  if (actions.length === 0 && !canEdit) return <Typography.Text type="secondary">—</Typography.Text>;
  return (
    <Space size={0} wrap>
      {can('promote') && confirmed('promote', t('users.promote'))}
      {can('demote') && confirmed('demote', t('users.demote'))}
      {can('disable') && confirmed('disable', t('users.disable'), true)}
      {can('enable') && confirmed('enable', t('users.enable'))}
      {canEdit && (
        <Button size="small" type="link" onClick={() => onEdit(user.id)}>
          {t('common.edit')}
        </Button>
      )}
      {can('delete') && confirmed('delete', t('users.cancelAccount'), true)}
    </Space>
  );
}
