import { channelTypeNames } from '@modelgate/shared';
import { Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { formatDateTime, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import type { Channel, ChannelListItem } from '@modelgate/shared';
import { isTagRow } from '../api/get-channels';
import { useChannelTypes } from '../api/get-channel-types';
import { parsePriority, parseWeight } from '../hooks/number-rules';
import type { useChannelActions } from '../hooks/useChannelActions';
import { ChannelStatusTag, ResponseTimeTag } from './ChannelCells';
import { ChannelRowActions, type RowHandlers } from './ChannelRowActions';
import { InlineInteger } from './InlineInteger';

type Actions = ReturnType<typeof useChannelActions>;

export function useChannelColumns(actions: Actions, handlers: RowHandlers): DataColumn<ChannelListItem>[] {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const types = useChannelTypes();
  const typeName = (type: number) => types.data?.find((item) => item.type === type)?.displayName ?? channelTypeNames[type] ?? String(type);
  const groupTags = (groups: string) => (
    <Space size={2} wrap>
      {groups
        .split(',')
        .filter(Boolean)
        .map((group) => (
          <Tag key={group} color="blue">
            {group}
          </Tag>
        ))}
    </Space>
  );
  return [
    { key: 'id', title: t('channels.col.id'), render: (_v, item) => (isTagRow(item) ? '' : item.id), width: 70 },
    {
      key: 'name',
      title: t('channels.col.name'),
      render: (_v, item) =>
        isTagRow(item) ? (
          <Space size={4}>
            <Tag color="purple">{t('channels.tagLabel')}</Tag>
            <Typography.Text strong>{item.tag}</Typography.Text>
            <Typography.Text type="secondary">({item.children.length})</Typography.Text>
          </Space>
        ) : (
          <Space size={4}>
            <Typography.Text strong>{item.name}</Typography.Text>
            {item.tag && <Tag>{item.tag}</Tag>}
          </Space>
        ),
    },
    { key: 'group', title: t('channels.col.group'), render: (_v, item) => groupTags(item.group) },
    { key: 'type', title: t('channels.col.type'), render: (_v, item) => <Tag>{typeName(item.type)}</Tag> },
    {
      key: 'status',
      title: t('channels.col.status'),
      render: (_v, item) => <ChannelStatusTag status={item.status} otherInfo={isTagRow(item) ? undefined : item.other_info} />,
    },
    {
      key: 'responseTime',
      title: t('channels.col.responseTime'),
      render: (_v, item) => <ResponseTimeTag milliseconds={item.response_time} testTime={item.test_time} />,
    },
    {
      key: 'balance',
      title: t('channels.col.balance'),
      render: (_v, item) => (
        <Space size={2}>
          <Tooltip title={t('channels.usedQuota')}>
            <Tag>{renderQuota(item.used_quota, status ?? null)}</Tag>
          </Tooltip>
          {!isTagRow(item) && (
            <Tooltip title={t('channels.balanceTip', { time: formatDateTime(item.balance_updated_time) || t('channels.none') })}>
              <Tag color="green" style={{ cursor: 'pointer' }} onClick={() => void actions.updateBalance(item.id, item.name)}>
                ${item.balance.toFixed(2)}
              </Tag>
            </Tooltip>
          )}
        </Space>
      ),
    },
    {
      key: 'priority',
      title: t('channels.col.priority'),
      render: (_v, item) => (
        <InlineInteger
          key={`${rowId(item)}-${item.priority}`}
          value={item.priority}
          label={t('channels.priorityOf', { name: item.name })}
          parse={parsePriority}
          onSave={(value) => (isTagRow(item) ? actions.setTagPriority(item.tag, value) : actions.setPriority(item.id, value))}
        />
      ),
    },
    {
      key: 'weight',
      title: t('channels.col.weight'),
      render: (_v, item) => (
        <InlineInteger
          key={`${rowId(item)}-${item.weight}`}
          value={item.weight}
          label={t('channels.weightOf', { name: item.name })}
          parse={parseWeight}
          onSave={(value) => (isTagRow(item) ? actions.setTagWeight(item.tag, value) : actions.setWeight(item.id, value))}
        />
      ),
    },
    {
      key: 'actions',
      title: t('common.actions'),
      fixed: 'right',
      render: (_v, item) => <ChannelRowActions item={item} actions={actions} handlers={handlers} />,
    },
  ];
}

const rowId = (item: ChannelListItem): string => (isTagRow(item) ? `tag-${item.tag}` : String((item as Channel).id));
