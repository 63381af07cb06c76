import { Button, DatePicker, Form, Input } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { TaskLogFilters } from '../api/keys';

interface FilterValues {
  channel_id: string;
  task_id: string;
  range: [Dayjs | null, Dayjs | null] | null;
}

/** The drawing log's default window: 30 days back to an hour ahead. */
export const defaultDrawingFilters = (): TaskLogFilters => ({
  channel_id: '',
  task_id: '',
  start_timestamp: dayjs().subtract(30, 'day').unix(),
  end_timestamp: dayjs().add(1, 'hour').unix(),
});

/** The music log starts at today's midnight, to an hour ahead. */
export const defaultMusicFilters = (): TaskLogFilters => ({
  channel_id: '',
  task_id: '',
  start_timestamp: dayjs().startOf('day').unix(),
  end_timestamp: dayjs().add(1, 'hour').unix(),
});

/** Filters of both task logs: channel id (admins), task id, start and end time, and a query button. */
export function TaskLogFilterBar({
  initial,
  isAdmin,
  onSearch,
}: {
  initial: TaskLogFilters;
  isAdmin: boolean;
  onSearch: (filters: TaskLogFilters) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FilterValues>();
  const submit = (values: FilterValues) =>
    onSearch({
      channel_id: (values.channel_id ?? '').trim(),
      task_id: (values.task_id ?? '').trim(),
      start_timestamp: values.range?.[0]?.unix() ?? 0,
      end_timestamp: values.range?.[1]?.unix() ?? 0,
      searchedAt: Date.now(),
    });
  return (
    <Form
      form={form}
      layout="inline"
      style={{ rowGap: 8, marginBottom: 12 }}
      initialValues={{
        channel_id: initial.channel_id,
        task_id: initial.task_id,
        range: [
          initial.start_timestamp ? dayjs.unix(initial.start_timestamp) : null,
          initial.end_timestamp ? dayjs.unix(initial.end_timestamp) : null,
        ],
      }}
      onFinish={submit}
    >
      {isAdmin && (
        <Form.Item name="channel_id" label={t('taskLogs.channelId')}>
          <Input allowClear aria-label={t('taskLogs.channelId')} style={{ width: 110 }} />
        </Form.Item>
      )}
      <Form.Item name="task_id" label={t('taskLogs.taskId')}>
        <Input allowClear aria-label={t('taskLogs.taskId')} style={{ width: 200 }} />
      </Form.Item>
      <Form.Item name="range" label={t('taskLogs.timeRange')}>
        <DatePicker.RangePicker showTime />
      </Form.Item>
      <Form.Item>
        <Button type="primary" htmlType="submit">
          {t('taskLogs.query')}
        </Button>
      </Form.Item>
    </Form>
  );
}
