import { TokenStatus } from '@modelgate/shared';
import { Space, Switch, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { formatDateTime, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import type { Token } from '@modelgate/shared';
import { fullKey } from '../hooks/chat-links';
import { TokenRowActions } from './TokenRowActions';

const statusColors: Record<number, string> = { 1: 'green', 2: 'red', 3: 'gold', 4: 'volcano' };

interface Handlers {
  onEdit: (id: number) => void;
  onDelete: (id: number) => unknown;
  onToggle: (token: Token, isEnabled: boolean) => unknown;
}

/** The token list's columns; the expiry comes before the creation time, so it is the one left in view on a narrow screen. */
export function useTokenColumns({ onEdit, onDelete, onToggle }: Handlers): DataColumn<Token>[] {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const maskedKey = (key: string) => fullKey(`${key.slice(0, 4)}…${key.slice(-4)}`);
  return [
    { key: 'name', title: t('tokens.col.name'), render: (_v, token) => <Typography.Text strong>{token.name}</Typography.Text> },
    {
      key: 'status',
      title: t('tokens.col.status'),
      render: (_v, token) => {
        const canToggle = token.status === TokenStatus.enabled || token.status === TokenStatus.disabled;
        return (
          <Space size={6}>
            <Switch
              size="small"
              aria-label={t('tokens.toggle', { name: token.name })}
              checked={token.status === TokenStatus.enabled}
              disabled={!canToggle}
              onChange={(checked) => void onToggle(token, checked)}
            />
            <Tag color={statusColors[token.status]}>{t(`tokens.status.${token.status}`, { defaultValue: t('tokens.status.unknown') })}</Tag>
          </Space>
        );
      },
    },
    {
      key: 'quota',
      title: t('tokens.col.quota'),
      render: (_v, token) => (
        <Space size={4}>
          <Tooltip title={t('tokens.used')}>
            <Tag>{renderQuota(token.used_quota, status ?? null)}</Tag>
          </Tooltip>
          <Tooltip title={t('tokens.remaining')}>
            <Tag color="green">{token.unlimited_quota ? t('tokens.unlimited') : renderQuota(token.remain_quota, status ?? null)}</Tag>
          </Tooltip>
        </Space>
      ),
    },
    { key: 'key', title: t('tokens.col.key'), render: (_v, token) => <Typography.Text code>{maskedKey(token.key)}</Typography.Text> },
    { key: 'group', title: t('tokens.col.group'), render: (_v, token) => <Tag color="blue">{token.group || t('tokens.ownGroup')}</Tag> },
    {
      key: 'expiry',
      title: t('tokens.col.expiry'),
      render: (_v, token) => (token.expired_time === -1 ? t('tokens.never') : formatDateTime(token.expired_time)),
    },
    { key: 'created', title: t('tokens.col.created'), render: (_v, token) => formatDateTime(token.created_time) },
    {
      key: 'actions',
      title: t('common.actions'),
      fixed: 'right',
      render: (_v, token) => <TokenRowActions token={token} onEdit={onEdit} onDelete={onDelete} />,
    },
  ];
}
