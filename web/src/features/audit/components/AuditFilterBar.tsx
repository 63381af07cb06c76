import { DatePicker, Form, Input, Select } from 'antd';
import type { Dayjs } from 'dayjs';
import { useTranslation } from 'react-i18next';
import { FilterForm } from '../../../components/FilterForm';
import type { AuditFilters } from '../api/keys';

interface FilterValues {
  username?: string;
  entity?: string;
  action?: string;
  range?: [Dayjs | null, Dayjs | null] | null;
}

/** The kinds of entity the trail names (server/src/api/audit/audit-targets.ts). */
const entities = [
  'option',
  'group',
  'price',
  'channel',
  'user',
  'token',
  'redemption',
  'subscription_plan',
  'subscription',
  'session',
  'log',
];

/** Who, what and when: username, entity, action and a time range, then the search button. */
export function AuditFilterBar({ onSearch }: { onSearch: (filters: AuditFilters) => void }) {
  const { t } = useTranslation();
  const submit = (values: FilterValues) =>
    onSearch({
      username: values.username ?? '',
      entity: values.entity ?? '',
      action: values.action ?? '',
      start_timestamp: values.range?.[0]?.unix() ?? 0,
      end_timestamp: values.range?.[1]?.unix() ?? 0,
    });
  return (
    <FilterForm<FilterValues> onSearch={submit} initialValues={{ entity: '' }}>
      <Form.Item name="username">
        <Input allowClear aria-label={t('audit.filter.username')} placeholder={t('audit.filter.username')} style={{ width: 150 }} />
      </Form.Item>
      <Form.Item name="entity">
        <Select
          aria-label={t('audit.filter.entity')}
          style={{ width: 160 }}
          options={[{ value: '', label: t('audit.filter.allEntities') }, ...entities.map((entity) => ({ value: entity, label: entity }))]}
        />
      </Form.Item>
      <Form.Item name="action">
        <Input allowClear aria-label={t('audit.filter.action')} placeholder={t('audit.filter.action')} style={{ width: 150 }} />
      </Form.Item>
      <Form.Item name="range">
        <DatePicker.RangePicker showTime aria-label={t('audit.filter.time')} />
      </Form.Item>
    </FilterForm>
  );
}
