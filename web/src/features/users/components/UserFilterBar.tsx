import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Form, Input, Select } from 'antd';
import { FilterForm, groupFilterOptions } from '../../../components/FilterForm';
import { useTranslation } from 'react-i18next';
import { useGroups } from '../../../lib/api/groups';
import type { UserFilters } from '../api/keys';

export function UserFilterBar({ onSearch, onAdd }: { onSearch: (filters: UserFilters) => void; onAdd: () => void }) {
  const { t } = useTranslation();
  const groups = useGroups();
  return (
    <FilterForm<UserFilters>
      initialValues={{ keyword: '', group: '' }}
      onSearch={(values) => onSearch({ keyword: values.keyword ?? '', group: values.group ?? '' })}
      extra={
        <Button icon={<PlusOutlined />} onClick={onAdd}>
          {t('users.add')}
        </Button>
      }
    >
      <Form.Item name="keyword">
        <Input
          allowClear
          aria-label={t('users.keyword')}
          placeholder={t('users.keywordPlaceholder')}
          prefix={<SearchOutlined />}
          style={{ width: 240 }}
        />
      </Form.Item>
      <Form.Item name="group">
        <Select aria-label={t('users.group')} style={{ width: 160 }} options={groupFilterOptions(t('users.allGroups'), groups.data)} />
      </Form.Item>
    </FilterForm>
  );
}
