import { LogType } from '@modelgate/shared';
import { Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { formatTokenCount } from '../../../components/token-count';
import { formatDateTime, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import type { LogEntry } from '../api/get-logs';
import { billingSourceColor, durationColor, firstTokenColor, LogTypeColor, parseOther } from './log-detail';

/**
 * Columns of the usage log; channel and user columns for admins only. The cost follows the model, so
 * it stays in view on a 1366 px screen; timings and token counts come after it.
 */
export function useLogColumns(isAdmin: boolean, onUser: (userId: number) => void): DataColumn<LogEntry>[] {
  const { t } = useTranslation();
  const { data: status = null } = useStatus();
  const columns: (DataColumn<LogEntry> | false)[] = [
    { key: 'time', title: t('logs.time'), dataIndex: 'created_at', render: (value: number) => formatDateTime(value) },
    isAdmin && {
      key: 'channel',
      title: t('logs.channel'),
      dataIndex: 'channel',
      render: (_: unknown, log: LogEntry) =>
        (log.type === LogType.consume || log.type === LogType.error) && log.channel ? (
          <Tooltip title={log.channel_name}>
            <Tag>{log.channel}</Tag>
          </Tooltip>
        ) : null,
    },
    isAdmin && {
      key: 'user',
      title: t('logs.user'),
      dataIndex: 'username',
      render: (value: string, log: LogEntry) =>
        value ? <Typography.Link onClick={() => onUser(log.user_id)}>{value}</Typography.Link> : null,
    },
    {
      key: 'token',
      title: t('logs.token'),
      dataIndex: 'token_name',
      render: (value: string) => (value ? <Tag color="blue">{value}</Tag> : null),
    },
    { key: 'group', title: t('logs.group'), dataIndex: 'group', render: (value: string) => (value ? <Tag>{value}</Tag> : null) },
    {
      key: 'type',
      title: t('logs.type'),
      dataIndex: 'type',
      render: (value: number) => (
        <Tag color={LogTypeColor[value] ?? 'default'}>{t(value in LogTypeColor ? `logs.types.${value}` : 'logs.types.unknown')}</Tag>
      ),
    },
    {
      key: 'model',
      title: t('logs.model'),
      dataIndex: 'model_name',
      render: (value: string) => (value ? <Tag color="geekblue">{value}</Tag> : null),
    },
    {
      key: 'quota',
      title: t('logs.quota'),
      dataIndex: 'quota',
      render: (value: number, log: LogEntry) => {
        if (log.type !== LogType.consume && !value) return null;
        // A call a subscription paid (some of): who paid, beside the cost; a call the response cache answered, tagged.
        const source =
          log.type === LogType.consume && log.other.includes('"billing_source"') ? parseOther(log.other).billing_source : undefined;
        const isCacheHit = log.type === LogType.consume && log.other.includes('"cache_hit":true');
        const hasSource = !!source && source !== 'wallet';
        if (!hasSource && !isCacheHit) return renderQuota(value, status, 6);
        return (
          <Space size={4}>
            {renderQuota(value, status, 6)}
            {hasSource && <Tag color={billingSourceColor[source]}>{t(`logs.sources.${source}`)}</Tag>}
            {isCacheHit && <Tag color="cyan">{t('logs.cacheHit')}</Tag>}
          </Space>
        );
      },
    },
    {
      key: 'useTime',
      title: t('logs.useTime'),
      dataIndex: 'use_time',
      render: (value: number, log: LogEntry) => {
        if (log.type === LogType.error) return <Tag color={durationColor(value)}>{t('logs.seconds', { value })}</Tag>;
        if (log.type !== LogType.consume) return null;
        const frt = (parseOther(log.other).frt ?? 0) / 1000;
        return (
          <Space size={4}>
            <Tag color={durationColor(value)}>{t('logs.seconds', { value })}</Tag>
            {log.is_stream ? (
              <Tooltip title={t('logs.firstToken')}>
                <Tag color={firstTokenColor(frt)}>{t('logs.seconds', { value: frt.toFixed(1) })}</Tag>
              </Tooltip>
            ) : null}
            <Tag>{log.is_stream ? t('logs.stream') : t('logs.nonStream')}</Tag>
          </Space>
        );
      },
    },
    {
      key: 'prompt',
      title: t('logs.promptTokens'),
      dataIndex: 'prompt_tokens',
      render: (value: number, log: LogEntry) => (log.type === LogType.consume ? formatTokenCount(value) : null),
    },
    {
      key: 'completion',
      title: t('logs.completionTokens'),
      dataIndex: 'completion_tokens',
      render: (value: number, log: LogEntry) => (log.type === LogType.consume ? formatTokenCount(value) : null),
    },
    {
      key: 'content',
      title: t('logs.content'),
      dataIndex: 'content',
      render: (value: string) => (
        <Typography.Text style={{ maxWidth: 320 }} ellipsis={{ tooltip: value }}>
          {value}
        </Typography.Text>
      ),
    },
  ];
  return columns.filter((column): column is DataColumn<LogEntry> => column !== false);
}
