import { SearchOutlined } from '@ant-design/icons';
import { Form, Input, Select, Space, Switch, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { FilterForm, groupFilterOptions } from '../../../components/FilterForm';
import type { ChannelFilters } from '../api/keys';
import { useGroups } from '../../../lib/api/groups';

interface Props {
  onSearch: (filters: ChannelFilters) => void;
  isIdSort: boolean;
  onIdSort: (value: boolean) => void;
  isTagMode: boolean;
  onTagMode: (value: boolean) => void;
}

/** Keyword, group and model search, plus the id-sort and tag-mode switches. */
export function ChannelFilterBar({ onSearch, isIdSort, onIdSort, isTagMode, onTagMode }: Props) {
  const { t } = useTranslation();
  const groups = useGroups();
  return (
    <Space wrap size={[16, 8]}>
      <FilterForm<ChannelFilters>
        initialValues={{ keyword: '', group: '', model: '' }}
        onSearch={(values) => onSearch({ keyword: values.keyword ?? '', group: values.group ?? '', model: values.model ?? '' })}
      >
        <Form.Item name="keyword">
          <Input
            allowClear
            aria-label={t('channels.keyword')}
            placeholder={t('channels.keywordPlaceholder')}
            prefix={<SearchOutlined />}
            style={{ width: 220 }}
          />
        </Form.Item>
        <Form.Item name="model">
          <Input allowClear aria-label={t('channels.modelFilter')} placeholder={t('channels.modelFilter')} style={{ width: 160 }} />
        </Form.Item>
        <Form.Item name="group">
          <Select
            aria-label={t('channels.groupFilter')}
            style={{ width: 140 }}
            options={groupFilterOptions(t('channels.allGroups'), groups.data)}
          />
        </Form.Item>
      </FilterForm>
      <Space>
        <Switch size="small" checked={isIdSort} onChange={onIdSort} aria-label={t('channels.idSort')} />
        <Typography.Text>{t('channels.idSort')}</Typography.Text>
        <Switch size="small" checked={isTagMode} onChange={onTagMode} aria-label={t('channels.tagMode')} />
        <Typography.Text>{t('channels.tagMode')}</Typography.Text>
      </Space>
    </Space>
  );
}
