import { RedemptionStatus, type Redemption } from '@modelgate/shared';
import { Button, Popconfirm, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { copyText } from '../../../lib/clipboard';
import { formatDateTime, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';

const statusColors: Record<number, string> = { 1: 'green', 2: 'red', 3: 'default' };

interface Handlers {
  onEdit: (id: number) => void;
  onDelete: (id: number) => unknown;
  onStatus: (id: number, status: 1 | 2) => unknown;
}

export function useRedemptionColumns({ onEdit, onDelete, onStatus }: Handlers): DataColumn<Redemption>[] {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  return [
    { key: 'id', title: t('redemptions.col.id'), dataIndex: 'id', width: 70 },
    { key: 'name', title: t('redemptions.col.name'), render: (_v, item) => <Typography.Text strong>{item.name}</Typography.Text> },
    {
      key: 'status',
      title: t('redemptions.col.status'),
      render: (_v, item) => (
        <Tag color={statusColors[item.status]}>
          {t(`redemptions.status.${item.status}`, { defaultValue: t('redemptions.status.unknown') })}
        </Tag>
      ),
    },
    { key: 'quota', title: t('redemptions.col.quota'), render: (_v, item) => renderQuota(item.quota, status ?? null) },
    { key: 'created', title: t('redemptions.col.created'), render: (_v, item) => formatDateTime(item.created_time) || '-' },
    {
      key: 'redeemer',
      title: t('redemptions.col.redeemer'),
      render: (_v, item) => (item.used_user_id === 0 ? t('redemptions.none') : item.used_user_id),
    },
    {
      key: 'actions',
      title: t('common.actions'),
      fixed: 'right',
      render: (_v, item) => (
        <Space size={0}>
          <Button size="small" type="link" onClick={() => void copyText(item.key)}>
            {t('common.copy')}
          </Button>
          {item.status === RedemptionStatus.unused && (
            <Button size="small" type="link" danger onClick={() => void onStatus(item.id, RedemptionStatus.disabled)}>
              {t('redemptions.disable')}
            </Button>
          )}
          {item.status === RedemptionStatus.disabled && (
            <Button size="small" type="link" onClick={() => void onStatus(item.id, RedemptionStatus.unused)}>
              {t('redemptions.enable')}
            </Button>
          )}
          <Button size="small" type="link" disabled={item.status !== RedemptionStatus.unused} onClick={() => onEdit(item.id)}>
            {t('common.edit')}
          </Button>
          <Popconfirm
            title={t('redemptions.confirmDelete', { name: item.name })}
            okText={t('common.confirm')}
            cancelText={t('common.cancel')}
            okButtonProps={{ danger: true }}
            onConfirm={() => void onDelete(item.id)}
          >
            <Button size="small" type="link" danger>
              {t('redemptions.delete')}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];
}
