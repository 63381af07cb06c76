import { Card, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { isAdmin as isAdminUser, useCurrentUser } from '../../../lib/user-store';
import { useMusicTasks, type MusicTaskRow as MusicTask } from '../api/get-music-tasks';
import type { TaskLogFilters } from '../api/keys';
import { durationCell, progressCell, statusTag, timeOf } from './task-cells';
import { TaskDetailModal } from './TaskDetailModal';
import { defaultMusicFilters, TaskLogFilterBar } from './TaskLogFilterBar';
import { TaskLogTable } from './TaskLogTable';

/** The whole task as indented JSON (its `data` parsed when it is JSON). */
function taskJson(task: MusicTask): string {
  let data: unknown = task.data;
  try {
    data = task.data ? JSON.parse(task.data) : null;
  } catch {
    data = task.data;
  }
  return JSON.stringify({ ...task, data }, null, 2);
}

/** Music task log: progress circles, time spent, the task's JSON on click. */
export function MusicLogPage() {
  const { t } = useTranslation();
  const isAdmin = isAdminUser(useCurrentUser());
  const [filters, setFilters] = useState<TaskLogFilters>(defaultMusicFilters);
  const [detail, setDetail] = useState<{ title: string; text: string } | null>(null);
  const columns: (DataColumn<MusicTask> | false)[] = [
    { key: 'submit', title: t('taskLogs.submitTime'), dataIndex: 'submit_time', render: (value: number) => timeOf(value) },
    { key: 'finish', title: t('taskLogs.finishTime'), dataIndex: 'finish_time', render: (value: number) => timeOf(value) },
    { key: 'progress', title: t('taskLogs.progress'), dataIndex: 'progress', render: (value: string) => progressCell(value) },
    {
      key: 'duration',
      title: t('taskLogs.duration'),
      dataIndex: 'finish_time',
      render: (_: unknown, task: MusicTask) => durationCell(task.submit_time, task.finish_time),
    },
    isAdmin && {
      key: 'channel',
      title: t('taskLogs.channel'),
      dataIndex: 'channel_id',
      render: (value?: number) => (value ? <Tag>{value}</Tag> : '-'),
    },
    {
      key: 'platform',
      title: t('taskLogs.platform'),
      dataIndex: 'platform',
      render: (value: string) => <Tag color="purple">{value || '-'}</Tag>,
    },
    {
      key: 'action',
      title: t('taskLogs.type'),
      dataIndex: 'action',
      render: (value: string, task: MusicTask) => (
        <Tag color="geekblue">
          {task.platform === 'video'
            ? t('taskLogs.videoAction', { seconds: task.video_seconds ?? 0 })
            : t(`taskLogs.musicActions.${value}`, { defaultValue: value })}
        </Tag>
      ),
    },
    {
      key: 'taskId',
      title: t('taskLogs.taskId'),
      dataIndex: 'task_id',
      render: (value: string, task: MusicTask) => (
        <Typography.Link onClick={() => setDetail({ title: value, text: taskJson(task) })}>{value || '-'}</Typography.Link>
      ),
    },
    {
      key: 'status',
      title: t('taskLogs.status'),
      dataIndex: 'status',
      render: (value: string) => statusTag(value, t(`taskLogs.statuses.${value || 'EMPTY'}`, { defaultValue: value })),
    },
    { key: 'fail', title: t('taskLogs.failReason'), dataIndex: 'fail_reason', render: (value: string) => value || t('taskLogs.none') },
    {
      key: 'preview',
      title: t('taskLogs.preview'),
      dataIndex: 'preview_url',
      render: (value?: string) =>
        value ? (
          <Typography.Link href={value} target="_blank" rel="noreferrer">
            {t('taskLogs.previewVideo')}
          </Typography.Link>
        ) : (
          '-'
        ),
    },
  ];
  return (
    <Card>
      <Typography.Title level={4} style={{ marginTop: 0 }}>
        {t('menu.taskLog')}
      </Typography.Title>
      <TaskLogFilterBar initial={filters} isAdmin={isAdmin} onSearch={setFilters} />
      <TaskLogTable<MusicTask>
        filters={filters}
        isAdmin={isAdmin}
        usePage={useMusicTasks}
        columns={columns.filter((column): column is DataColumn<MusicTask> => !!column)}
      />
      <TaskDetailModal title={detail?.title ?? ''} text={detail?.text ?? null} onClose={() => setDetail(null)} />
    </Card>
  );
}
