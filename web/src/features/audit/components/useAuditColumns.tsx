import { Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { formatDateTime } from '../../../lib/format';
import type { AuditEntry } from '../api/get-audit-page';

const roleNames: Record<number, string> = { 100: 'root', 10: 'admin', 1: 'user' };

/** before/after as the server stored it (secrets already removed), pretty-printed, or '-' for none. */
function ChangeText({ text }: { text: string }) {
  if (!text) return <>-</>;
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // stored as text; shown as is
  }
  return (
    <Typography.Paragraph
      style={{ margin: 0, maxWidth: 360, maxHeight: 160, overflow: 'auto', whiteSpace: 'pre-wrap', fontFamily: 'monospace', fontSize: 12 }}
    >
      {shown}
    </Typography.Paragraph>
  );
}

/** Columns of the audit screen: when, who, from where, what, the outcome, before and after. */
export function useAuditColumns(): DataColumn<AuditEntry>[] {
  const { t } = useTranslation();
  return [
    { key: 'id', title: t('audit.col.id'), dataIndex: 'id', width: 70 },
    { key: 'time', title: t('audit.col.time'), render: (_v, entry) => formatDateTime(entry.created_at) },
    {
      key: 'user',
      title: t('audit.col.user'),
      render: (_v, entry) => (
        <span>
          {entry.username} <Tag>{roleNames[entry.role] ?? entry.role}</Tag>
        </span>
      ),
    },
    { key: 'ip', title: t('audit.col.ip'), dataIndex: 'ip' },
    {
      key: 'route',
      title: t('audit.col.route'),
      render: (_v, entry) => <Typography.Text code>{`${entry.method} ${entry.route}`}</Typography.Text>,
    },
    {
      key: 'entity',
      title: t('audit.col.entity'),
      render: (_v, entry) => (entry.entity_id ? `${entry.entity} #${entry.entity_id}` : entry.entity),
    },
    { key: 'action', title: t('audit.col.action'), dataIndex: 'action' },
    {
      key: 'status',
      title: t('audit.col.status'),
      render: (_v, entry) => <Tag color={entry.status < 400 ? 'green' : 'red'}>{entry.status}</Tag>,
    },
    { key: 'before', title: t('audit.col.before'), render: (_v, entry) => <ChangeText text={entry.before} /> },
    { key: 'after', title: t('audit.col.after'), render: (_v, entry) => <ChangeText text={entry.after} /> },
  ];
}
