import { DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Input, Space, type TableColumnType } from 'antd';
import { useTranslation } from 'react-i18next';
import { hasPrice, type RatioRow } from './ratio-editor';

type Field = 'price' | 'ratio' | 'completionRatio';

/** Editable columns: price, ratio, completion ratio (ratios disabled while a price is set). */
export function useRatioColumns(
  onCell: (name: string, field: Field, text: string) => void,
  onEdit: (row: RatioRow) => void,
  onDelete?: (name: string) => void,
): TableColumnType<RatioRow>[] {
  const { t } = useTranslation();
  const cell = (field: Field, labelKey: string) => (text: string, row: RatioRow) => (
    <Input
      size="small"
      style={{ width: 120 }}
      aria-label={`${row.name} ${t(labelKey)}`}
      value={text}
      disabled={field !== 'price' && hasPrice(row)}
      placeholder={field !== 'price' && hasPrice(row) ? t('settingsOps.usesPrice') : undefined}
      prefix={field === 'price' ? '$' : undefined}
      onChange={(event) => onCell(row.name, field, event.target.value.trim())}
    />
  );
  return [
    { key: 'name', title: t('settingsOps.modelName'), dataIndex: 'name' },
    { key: 'price', title: t('settingsOps.fixedPrice'), dataIndex: 'price', render: cell('price', 'settingsOps.fixedPrice') },
    { key: 'ratio', title: t('settingsOps.ratioColumn'), dataIndex: 'ratio', render: cell('ratio', 'settingsOps.ratioColumn') },
    {
      key: 'completionRatio',
      title: t('settingsOps.completionColumn'),
      dataIndex: 'completionRatio',
      render: cell('completionRatio', 'settingsOps.completionColumn'),
    },
    {
      key: 'actions',
      title: t('common.actions'),
      render: (_: unknown, row: RatioRow) => (
        <Space>
          <Button size="small" icon={<EditOutlined />} aria-label={`${t('common.edit')} ${row.name}`} onClick={() => onEdit(row)} />
          {onDelete && (
            <Button
              size="small"
              danger
              icon={<DeleteOutlined />}
              aria-label={`${t('settingsOps.delete')} ${row.name}`}
              onClick={() => onDelete(row.name)}
            />
          )}
        </Space>
      ),
    },
  ];
}
