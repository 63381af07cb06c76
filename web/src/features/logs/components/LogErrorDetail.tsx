import { Descriptions, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { LogEntry } from '../api/get-logs';
import { durationColor, parseOther } from './log-detail';

/** Detail of an error row (type 5): the error text, the status answered, its type and code, and for admins the channels tried. */
export function LogErrorDetail({ log, isAdmin }: { log: LogEntry; isAdmin: boolean }) {
  const { t } = useTranslation();
  const other = parseOther(log.other);
  const chain = other.admin_info?.use_channel ?? [];
  const upstreamStatus = other.admin_info?.upstream_status;
  const items = [
    other.status_code !== undefined && { key: 'status', label: t('logs.statusCode'), children: <Tag color="red">{other.status_code}</Tag> },
    other.error_type && { key: 'type', label: t('logs.errorType'), children: other.error_type },
    other.error_code && { key: 'code', label: t('logs.errorCode'), children: <Typography.Text code>{other.error_code}</Typography.Text> },
    other.request_path && { key: 'path', label: t('logs.requestPath'), children: other.request_path },
    {
      key: 'useTime',
      label: t('logs.useTime'),
      children: <Tag color={durationColor(log.use_time)}>{t('logs.seconds', { value: log.use_time })}</Tag>,
    },
    isAdmin &&
      upstreamStatus !== undefined && {
        key: 'upstream',
        label: t('logs.upstreamStatus'),
        children:
          upstreamStatus === 0
            ? t('logs.upstreamUnreachable')
            : `${upstreamStatus}${other.admin_info?.upstream_code ? ` (${other.admin_info.upstream_code})` : ''}`,
      },
    isAdmin && chain.length > 0 && { key: 'chain', label: t('logs.retryChain'), children: chain.map((id) => `#${id}`).join(' → ') },
  ].filter((item) => !!item) as { key: string; label: string; children: React.ReactNode }[];
  return (
    <div data-testid={`log-detail-${log.id}`}>
      <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 3 }} items={items} bordered />
      <Typography.Paragraph style={{ margin: '8px 0 0', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} copyable={{ text: log.content }}>
        <Typography.Text type="danger">{t('logs.errorMessage')}</Typography.Text> {log.content}
      </Typography.Paragraph>
    </div>
  );
}
