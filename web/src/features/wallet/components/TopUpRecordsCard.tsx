import type { TopUp } from '@modelgate/shared';
import { Card, Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import { DataTable, type DataColumn } from '../../../components/DataTable';
import { formatDateTime } from '../../../lib/format';
import { fetchTopUps } from '../api/get-top-ups';
import { walletKeys } from '../api/keys';

const statusColors: Record<string, string> = { success: 'green', pending: 'blue', expired: 'default', failed: 'red' };

/** The caller's online top-up orders: which gateway took each and what state it is in. */
export function TopUpRecordsCard() {
  const { t } = useTranslation();
  const columns: DataColumn<TopUp>[] = [
    { key: 'create_time', title: t('wallet.records.time'), dataIndex: 'create_time', render: (value: number) => formatDateTime(value) },
    { key: 'trade_no', title: t('wallet.records.tradeNo'), dataIndex: 'trade_no' },
    { key: 'gateway', title: t('wallet.records.gateway'), dataIndex: 'gateway', render: (value: string) => t(`wallet.gateway.${value}`) },
    {
      key: 'payment_method',
      title: t('wallet.records.method'),
      dataIndex: 'payment_method',
      render: (value: string) => t(`wallet.method.${value}`, { defaultValue: value }),
    },
    { key: 'amount', title: t('wallet.records.amount'), dataIndex: 'amount' },
    { key: 'money', title: t('wallet.records.money'), dataIndex: 'money', render: (value: number) => value.toFixed(2) },
    {
      key: 'status',
      title: t('wallet.records.status'),
      dataIndex: 'status',
      render: (value: string) => <Tag color={statusColors[value] ?? 'default'}>{t(`wallet.status.${value}`, { defaultValue: value })}</Tag>,
    },
    {
      key: 'complete_time',
      title: t('wallet.records.completed'),
      dataIndex: 'complete_time',
      render: (value: number) => (value ? formatDateTime(value) : '—'),
    },
  ];
  return (
    <Card title={t('wallet.records.title')}>
      <DataTable tableId="topups" queryKey={walletKeys.topUps} fetchPage={fetchTopUps} columns={columns} rowKey="id" size="small" />
    </Card>
  );
}
