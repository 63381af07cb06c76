import { Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import type { AdminUser } from '@modelgate/shared';
import { isCancelled } from '../api/get-users';
import { UserRowActions } from './UserRowActions';
import { RoleTag, StatusTag } from './UserTags';

export function useUserColumns(onEdit: (id: number) => void): DataColumn<AdminUser>[] {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  return [
    { key: 'id', title: t('users.id'), dataIndex: 'id', width: 70 },
    {
      key: 'username',
      title: t('users.username'),
      render: (_value, user) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text strong>{user.username}</Typography.Text>
          {user.display_name && user.display_name !== user.username && (
            <Typography.Text type="secondary">{user.display_name}</Typography.Text>
          )}
        </Space>
      ),
    },
    { key: 'group', title: t('users.group'), render: (_value, user) => <Tag color="blue">{user.group || 'default'}</Tag> },
    {
      key: 'quota',
      title: t('users.quotaStats'),
      render: (_value, user) => (
        <Space size={4} wrap>
          <Tooltip title={t('users.remaining')}>
            <Tag color="green">{renderQuota(user.quota, status ?? null)}</Tag>
          </Tooltip>
          <Tooltip title={t('users.used')}>
            <Tag>{renderQuota(user.used_quota, status ?? null)}</Tag>
          </Tooltip>
          <Tooltip title={t('users.requests')}>
            <Tag>{user.request_count}</Tag>
          </Tooltip>
        </Space>
      ),
    },
    {
      key: 'invite',
      title: t('users.invite'),
      render: (_value, user) => (
        <Space size={4}>
          <Tooltip title={t('users.invited')}>
            <Tag>{user.aff_count}</Tag>
          </Tooltip>
          <Tooltip title={t('users.inviterId')}>
            <Tag>{user.inviter_id ? user.inviter_id : t('users.none')}</Tag>
          </Tooltip>
        </Space>
      ),
    },
    { key: 'role', title: t('users.role'), render: (_value, user) => <RoleTag role={user.role} /> },
    {
      key: 'status',
      title: t('users.status'),
      render: (_value, user) => <StatusTag status={user.status} isCancelled={isCancelled(user)} />,
    },
    {
      key: 'actions',
      title: t('common.actions'),
      fixed: 'right',
      render: (_value, user) => <UserRowActions user={user} onEdit={onEdit} />,
    },
  ];
}
