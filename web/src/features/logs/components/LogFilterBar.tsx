import { LogType } from '@modelgate/shared';
import { Button, DatePicker, Form, Input, Select } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { LogFilters } from '../api/keys';

interface FilterValues {
  type: number;
  token_name: string;
  model_name: string;
  range: [Dayjs | null, Dayjs | null] | null;
  group: string;
  channel: string;
  username: string;
}

/** The default window: from today's midnight to an hour ahead. */
export function defaultLogFilters(): LogFilters {
  return {
    type: 0,
    token_name: '',
    model_name: '',
    start_timestamp: dayjs().startOf('day').unix(),
    end_timestamp: dayjs().add(1, 'hour').unix(),
    group: '',
    channel: '',
    username: '',
  };
}

/** Filters of the usage log; admins also filter by channel id and username. */
export function LogFilterBar({
  initial,
  isAdmin,
  onSearch,
}: {
  initial: LogFilters;
  isAdmin: boolean;
  onSearch: (filters: LogFilters) => void;
}) {
  const { t } = useTranslation();
  const [form] = Form.useForm<FilterValues>();
  const types = [0, LogType.topup, LogType.consume, LogType.manage, LogType.system, LogType.error, LogType.refund];
  const submit = (values: FilterValues) =>
    onSearch({
      type: values.type ?? 0,
      token_name: (values.token_name ?? '').trim(),
      model_name: (values.model_name ?? '').trim(),
      start_timestamp: values.range?.[0]?.unix() ?? 0,
      end_timestamp: values.range?.[1]?.unix() ?? 0,
      group: (values.group ?? '').trim(),
      channel: (values.channel ?? '').trim(),
      username: (values.username ?? '').trim(),
    });
  return (
    <Form
      form={form}
      layout="inline"
      style={{ rowGap: 8 }}
      initialValues={{
        ...initial,
        range: [
          initial.start_timestamp ? dayjs.unix(initial.start_timestamp) : null,
          initial.end_timestamp ? dayjs.unix(initial.end_timestamp) : null,
        ],
      }}
      onFinish={submit}
    >
      <Form.Item name="token_name" label={t('logs.tokenName')}>
        <Input allowClear placeholder={t('logs.tokenName')} style={{ width: 150 }} />
      </Form.Item>
      <Form.Item name="model_name" label={t('logs.modelName')}>
        <Input allowClear placeholder={t('logs.modelName')} style={{ width: 160 }} />
      </Form.Item>
      <Form.Item name="range" label={t('logs.timeRange')}>
        <DatePicker.RangePicker showTime allowEmpty={[true, true]} />
      </Form.Item>
      <Form.Item name="group" label={t('logs.group')}>
        <Input allowClear placeholder={t('logs.group')} style={{ width: 120 }} />
      </Form.Item>
      {isAdmin && (
        <Form.Item name="channel" label={t('logs.channelId')}>
          <Input allowClear placeholder={t('logs.channelId')} style={{ width: 110 }} />
        </Form.Item>
      )}
      {isAdmin && (
        <Form.Item name="username" label={t('logs.username')}>
          <Input allowClear placeholder={t('logs.username')} style={{ width: 130 }} />
        </Form.Item>
      )}
      <Form.Item name="type" label={t('logs.type')}>
        <Select style={{ width: 110 }} options={types.map((type) => ({ value: type, label: t(`logs.types.${type}`) }))} />
      </Form.Item>
      <Form.Item>
        <Button type="primary" htmlType="submit">
          {t('common.search')}
        </Button>
      </Form.Item>
    </Form>
  );
}
