import { PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError } from '../../../lib/feedback';
import { useOptionSave } from '../hooks/useOptionSave';
import { BatchSetModal } from './BatchSetModal';
import { ModelPriceModal } from './ModelPriceModal';
import { applyBatch, changesFromRows, invalidRows, isNumberText, type BatchMode, type RatioRow } from './ratio-editor';
import { useRatioColumns } from './useRatioColumns';

interface Props {
  options: Record<string, string>;
  /** The models shown initially (all priced models, or the unset ones). */
  initialRows: RatioRow[];
  /** The unset-models list: no add or delete, page size 10. */
  isUnsetList?: boolean;
}

/** The visual ratio editor: search, add, edit, batch set, delete, then save the three maps. */
export function RatioEditor({ options, initialRows, isUnsetList = false }: Props) {
  const { t } = useTranslation();
  const { save, isSaving } = useOptionSave();
  const [rows, setRows] = useState(initialRows);
  const [removed, setRemoved] = useState<string[]>([]);
  const [selected, setSelected] = useState<string[]>([]);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<RatioRow | 'new' | null>(null);
  const [isBatchOpen, setBatchOpen] = useState(false);

  const updateCell = (name: string, field: 'price' | 'ratio' | 'completionRatio', text: string) => {
    if (!isNumberText(text)) return showError(t('settingsOps.enterNumber'));
    setRows((current) => current.map((row) => (row.name === name ? { ...row, [field]: text } : row)));
  };
  const remove = (name: string) => {
    setRows((current) => current.filter((row) => row.name !== name));
    setRemoved((current) => [...current, name]);
    setSelected((current) => current.filter((item) => item !== name));
  };
  const upsert = (next: RatioRow) => {
    setRows((current) =>
      current.some((row) => row.name === next.name) ? current.map((row) => (row.name === next.name ? next : row)) : [next, ...current],
    );
    setRemoved((current) => current.filter((name) => name !== next.name));
    setEditing(null);
  };
  const applyBatchSet = (mode: BatchMode, value: string, completion: string) => {
    setRows((current) => applyBatch(current, selected, mode, value, completion));
    setBatchOpen(false);
  };
  const submit = async () => {
    if (invalidRows(rows).length > 0) return showError(t('settingsOps.enterNumber'));
    const changes = changesFromRows(rows, options, removed);
    if (await save(changes)) setRemoved([]);
  };

  const columns = useRatioColumns(updateCell, setEditing, isUnsetList ? undefined : remove);
  const visible = useMemo(() => rows.filter((row) => row.name.toLowerCase().includes(search.trim().toLowerCase())), [rows, search]);

  return (
    <Flex vertical gap={12}>
      <Flex gap={8} wrap>
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t('settingsOps.searchModel')}
          aria-label={t('settingsOps.searchModel')}
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          style={{ maxWidth: 260 }}
        />
        {!isUnsetList && (
          <Button icon={<PlusOutlined />} onClick={() => setEditing('new')}>
            {t('settingsOps.addModel')}
          </Button>
        )}
        <Button onClick={() => (selected.length === 0 ? showError(t('settingsOps.selectFirst')) : setBatchOpen(true))}>
          {t('settingsOps.batchSet')}
        </Button>
        <Button type="primary" onClick={() => void submit()} loading={isSaving}>
          {t('settingsOps.applyRatios')}
        </Button>
      </Flex>
      <Table<RatioRow>
        rowKey="name"
        size="small"
        columns={columns}
        dataSource={visible}
        scroll={{ x: 'max-content' }}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(String)), preserveSelectedRowKeys: true }}
        pagination={isUnsetList ? { pageSize: 10, showSizeChanger: false } : { defaultPageSize: 10, showSizeChanger: true }}
        locale={isUnsetList ? { emptyText: t('settingsOps.noUnsetModels') } : undefined}
      />
      {editing && (
        <ModelPriceModal
          row={editing === 'new' ? null : editing}
          existing={rows.map((row) => row.name)}
          onClose={() => setEditing(null)}
          onSave={upsert}
        />
      )}
      {isBatchOpen && <BatchSetModal selected={selected} onClose={() => setBatchOpen(false)} onApply={applyBatchSet} />}
    </Flex>
  );
}
