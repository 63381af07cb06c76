import { Card, Flex, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useParams } from 'react-router';
import { DataTable } from '../../../components/DataTable';
import { showError } from '../../../lib/feedback';
import { readString, StorageKey, writeString } from '../../../lib/storage-keys';
import type { Channel, ChannelListItem, ChannelTagRow } from '@modelgate/shared';
import { fetchChannels, isTagRow, rowKeyOf } from '../api/get-channels';
import { channelKeys, type ChannelFilters } from '../api/keys';
import { useChannelActions } from '../hooks/useChannelActions';
import { BatchTagModal } from './BatchTagModal';
import { ChannelEditorDrawer } from './ChannelEditorDrawer';
import { ChannelFilterBar } from './ChannelFilterBar';
import { ChannelTestModal } from './ChannelTestModal';
import { ChannelToolbar } from './ChannelToolbar';
import { TagEditModal } from './TagEditModal';
import { useChannelColumns } from './useChannelColumns';

const emptyFilters: ChannelFilters = { keyword: '', group: '', model: '' };

/** Channel management (admin): /channel, /channel/add and /channel/edit/:id. */
export function ChannelListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const params = useParams();
  const actions = useChannelActions();
  const [filters, setFilters] = useState(emptyFilters);
  const [isIdSort, setIdSort] = useState(() => readString(StorageKey.idSort) === 'true');
  const [isTagMode, setTagMode] = useState(false);
  const [selected, setSelected] = useState<ChannelListItem[]>([]);
  const [testChannel, setTestChannel] = useState<Channel | null>(null);
  const [tagRow, setTagRow] = useState<ChannelTagRow | null>(null);
  const [isBatchTagOpen, setBatchTagOpen] = useState(false);
  const isAdd = location.pathname === '/channel/add';
  const editId = params.id ? Number(params.id) : null;
  const selectedIds = selected.filter((item): item is Channel => !isTagRow(item)).map((item) => item.id);

  const columns = useChannelColumns(actions, {
    onEdit: (id) => {
      void navigate(`/channel/edit/${id}`);
    },
    onEditTag: setTagRow,
    onPickTestModel: setTestChannel,
  });

  const changeIdSort = (value: boolean) => {
    writeString(StorageKey.idSort, String(value));
    setIdSort(value);
  };
  const options = { filters, isIdSort, isTagMode };
  return (
    <Card>
      <Flex vertical gap={12}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('channels.title')}
        </Typography.Title>
        <ChannelFilterBar onSearch={setFilters} isIdSort={isIdSort} onIdSort={changeIdSort} isTagMode={isTagMode} onTagMode={setTagMode} />
        <DataTable<ChannelListItem>
          tableId="channels"
          queryKey={channelKeys.list(options)}
          fetchPage={(page, pageSize) => fetchChannels(options, page, pageSize)}
          columns={columns}
          rowKey={rowKeyOf}
          size="small"
          rowSelection={{
            checkStrictly: false,
            selectedRowKeys: selected.map(rowKeyOf),
            onChange: (_keys, rows) => setSelected(rows),
          }}
          toolbar={
            <ChannelToolbar
              actions={actions}
              selectedIds={selectedIds}
              onCreate={() => navigate('/channel/add')}
              onBatchDeleted={() => setSelected([])}
              onBatchTag={() => (selectedIds.length === 0 ? showError(t('channels.msg.tagChannelsRequired')) : setBatchTagOpen(true))}
            />
          }
        />
      </Flex>
      <ChannelEditorDrawer open={isAdd || editId !== null} channelId={editId} onClose={() => navigate('/channel')} />
      <ChannelTestModal channel={testChannel} actions={actions} onClose={() => setTestChannel(null)} />
      <TagEditModal row={tagRow} onClose={() => setTagRow(null)} />
      <BatchTagModal
        open={isBatchTagOpen}
        count={selectedIds.length}
        onClose={() => setBatchTagOpen(false)}
        onSubmit={(tag) => actions.setTagOf(selectedIds, tag)}
      />
    </Card>
  );
}
