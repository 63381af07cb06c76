import { Alert, Card, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { useStatus } from '../../../lib/status';
import { isAdmin as isAdminUser, useCurrentUser } from '../../../lib/user-store';
import { useDrawingTasks, type DrawingTaskRow as DrawingTask } from '../api/get-drawing-tasks';
import type { TaskLogFilters } from '../api/keys';
import { durationCell, progressCell, statusTag, timeOf } from './task-cells';
import { TaskDetailModal } from './TaskDetailModal';
import { defaultDrawingFilters, TaskLogFilterBar } from './TaskLogFilterBar';
import { TaskLogTable } from './TaskLogTable';

interface Detail {
  title: string;
  text: string;
  imageUrl?: string;
}

/** Drawing task log: filters, the admin-only columns, details in an 800 × 400 dialog. */
export function DrawingLogPage() {
  const { t } = useTranslation();
  const isAdmin = isAdminUser(useCurrentUser());
  const { data: status = null } = useStatus();
  const [filters, setFilters] = useState<TaskLogFilters>(defaultDrawingFilters);
  const [detail, setDetail] = useState<Detail | null>(null);
  const show = (title: string, text: string, imageUrl?: string) => setDetail({ title, text, imageUrl });
  const link = (label: string, onClick: () => void) => <Typography.Link onClick={onClick}>{label}</Typography.Link>;
  const columns: (DataColumn<DrawingTask> | false)[] = [
    { key: 'submit', title: t('taskLogs.submitTime'), dataIndex: 'submit_time', render: (value: number) => timeOf(value) },
    { key: 'finish', title: t('taskLogs.finishTime'), dataIndex: 'finish_time', render: (value: number) => timeOf(value) },
    {
      key: 'duration',
      title: t('taskLogs.duration'),
      dataIndex: 'finish_time',
      render: (_: unknown, task: DrawingTask) => durationCell(task.submit_time, task.finish_time),
    },
    isAdmin && {
      key: 'channel',
      title: t('taskLogs.channel'),
      dataIndex: 'channel_id',
      render: (value?: number) => (value ? <Tag>{value}</Tag> : '-'),
    },
    {
      key: 'action',
      title: t('taskLogs.type'),
      dataIndex: 'action',
      render: (value: string) => <Tag color="geekblue">{t(`taskLogs.drawingActions.${value}`, { defaultValue: value })}</Tag>,
    },
    { key: 'mjId', title: t('taskLogs.taskId'), dataIndex: 'mj_id', render: (value: string) => value || '-' },
    isAdmin && {
      key: 'code',
      title: t('taskLogs.submitResult'),
      dataIndex: 'code',
      render: (value?: number) => t(`taskLogs.codes.${value ?? 0}`, { defaultValue: String(value ?? '') }),
    },
    isAdmin && { key: 'state', title: t('taskLogs.taskState'), dataIndex: 'state', render: (value?: string) => value || '-' },
    {
      key: 'status',
      title: t('taskLogs.status'),
      dataIndex: 'status',
      render: (value: string) => statusTag(value, t(`taskLogs.statuses.${value || 'EMPTY'}`, { defaultValue: value })),
    },
    { key: 'progress', title: t('taskLogs.progress'), dataIndex: 'progress', render: (value: string) => progressCell(value) },
    {
      key: 'image',
      title: t('taskLogs.image'),
      dataIndex: 'image_url',
      render: (value: string, task: DrawingTask) =>
        value ? link(t('taskLogs.viewImage'), () => show(task.mj_id || String(task.id), task.prompt, value)) : '-',
    },
    {
      key: 'prompt',
      title: t('taskLogs.prompt'),
      dataIndex: 'prompt',
      render: (value: string) =>
        value ? link(value.length > 20 ? `${value.slice(0, 20)}…` : value, () => show(t('taskLogs.prompt'), value)) : '-',
    },
    {
      key: 'promptEn',
      title: t('taskLogs.promptEn'),
      dataIndex: 'prompt_en',
      render: (value: string) =>
        value ? link(value.length > 20 ? `${value.slice(0, 20)}…` : value, () => show(t('taskLogs.promptEn'), value)) : '-',
    },
    {
      key: 'fail',
      title: t('taskLogs.failReason'),
      dataIndex: 'fail_reason',
      render: (value: string) =>
        value
          ? link(value.length > 20 ? `${value.slice(0, 20)}…` : value, () => show(t('taskLogs.failReason'), value))
          : t('taskLogs.none'),
    },
  ];
  return (
    <Card>
      <Typography.Title level={4} style={{ marginTop: 0 }}>
        {t('menu.drawingLog')}
      </Typography.Title>
      {status && !status.mj_notify_enabled && (
        <Alert type="info" showIcon style={{ marginBottom: 12 }} message={t('taskLogs.callbackOff')} />
      )}
      <TaskLogFilterBar initial={filters} isAdmin={isAdmin} onSearch={setFilters} />
      <TaskLogTable<DrawingTask>
        filters={filters}
        isAdmin={isAdmin}
        usePage={useDrawingTasks}
        columns={columns.filter((column): column is DataColumn<DrawingTask> => !!column)}
      />
      <TaskDetailModal
        title={detail?.title ?? ''}
        text={detail?.text ?? null}
        imageUrl={detail?.imageUrl}
        onClose={() => setDetail(null)}
      />
    </Card>
  );
}
