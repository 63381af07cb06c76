import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Form, Input, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { useGroups, type UserFilters } from '../api/users';

export function UserFilterBar({ onSearch, onAdd }: { onSearch: (filters: UserFilters) => void; onAdd: () => void }) {
  const { t } = useTranslation();
  const groups = useGroups();
  return (
    <Form<UserFilters>
      layout="inline"
      initialValues={{ keyword: '', group: '' }}
      onFinish={(values) => onSearch({ keyword: values.keyword ?? '', group: values.group ?? '' })}
      style={{ rowGap: 8 }}
    >
      <Form.Item name="keyword">
        <Input allowClear aria-label={t('users.keyword')} placeholder={t('users.keywordPlaceholder')} prefix={<SearchOutlined />} style={{ width: 240 }} />
      </Form.Item>
      <Form.Item name="group">
        <Select
          aria-label={t('users.group')}
          style={{ width: 160 }}
          options={[{ value: '', label: t('users.allGroups') }, ...(groups.data ?? []).map((group) => ({ value: group, label: group }))]}
        />
      </Form.Item>
      <Form.Item>
        <Button type="primary" htmlType="submit" icon={<SearchOutlined />}>
          {t('common.search')}
        </Button>
      </Form.Item>
      <Form.Item>
        <Button icon={<PlusOutlined />} onClick={onAdd}>
          {t('users.add')}
        </Button>
      </Form.Item>
    </Form>
  );
}
