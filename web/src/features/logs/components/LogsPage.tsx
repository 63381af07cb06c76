import { LogType } from '@modelgate/shared';
import { Card, Flex, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../../components/DataTable';
import { formatTokenCount } from '../../../components/token-count';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { isAdmin as isAdminUser, useCurrentUser } from '../../../lib/user-store';
import { useLogStat } from '../api/get-log-stat';
import { fetchLogs, type LogEntry } from '../api/get-logs';
import { logKeys, type LogFilters } from '../api/keys';
import { LogBillingDetail } from './LogBillingDetail';
import { LogErrorDetail } from './LogErrorDetail';
import { defaultLogFilters, LogFilterBar } from './LogFilterBar';
import { LogUserModal } from './LogUserModal';
import { useLogColumns } from './useLogColumns';

/** Usage log: filters, stats badges, paged table with billing detail. */
export function LogsPage() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const isAdmin = isAdminUser(user);
  const { data: status = null } = useStatus();
  const [filters, setFilters] = useState<LogFilters>(defaultLogFilters);
  const [userId, setUserId] = useState<number | null>(null);
  const { data: stat } = useLogStat(filters, isAdmin);
  const columns = useLogColumns(isAdmin, setUserId);

  return (
    <Card>
      <Flex justify="space-between" align="center" wrap gap={8} style={{ marginBottom: 12 }}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('logs.title')}
        </Typography.Title>
        <Flex gap={4} wrap aria-label={t('logs.stats')}>
          <Tag color="blue">{t('logs.statQuota', { value: renderQuota(stat?.quota ?? 0, status) })}</Tag>
          <Tag color="pink">{t('logs.statRpm', { value: stat?.rpm ?? 0 })}</Tag>
          <Tag color="gold">{t('logs.statTpm', { value: formatTokenCount(stat?.tpm ?? 0) })}</Tag>
        </Flex>
      </Flex>
      <Typography.Paragraph type="secondary">{t('logs.hint')}</Typography.Paragraph>
      <DataTable<LogEntry>
        tableId="logs"
        queryKey={logKeys.list(isAdmin, filters)}
        fetchPage={(page, pageSize) => fetchLogs(filters, isAdmin, page, pageSize)}
        columns={columns}
        rowKey="id"
        size="small"
        toolbar={<LogFilterBar initial={filters} isAdmin={isAdmin} onSearch={setFilters} />}
        expandable={{
          rowExpandable: (log) => log.type === LogType.consume || log.type === LogType.error,
          expandedRowRender: (log) =>
            log.type === LogType.error ? <LogErrorDetail log={log} isAdmin={isAdmin} /> : <LogBillingDetail log={log} isAdmin={isAdmin} />,
        }}
      />
      <LogUserModal userId={userId} onClose={() => setUserId(null)} />
    </Card>
  );
}
