import { SettingOutlined } from '@ant-design/icons';
import { defaultPageSize, pageSizeOptions } from '@modelgate/shared';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Button, Checkbox, Flex, Popover, Space, Table, type TableColumnType, type TableProps } from 'antd';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Page } from '../lib/http';
import { readJson, readString, StorageKey, writeJson, writeString } from '../lib/storage-keys';

export type DataColumn<T> = TableColumnType<T> & { key: string; title: ReactNode };

interface DataTableProps<T> {
  /** Names the column-visibility key: `${tableId}-table-columns`. */
  tableId: string;
  /** Query key of the list including its filters; a change goes back to page 1. */
  queryKey: readonly unknown[];
  fetchPage: (page: number, pageSize: number) => Promise<Page<T>>;
  columns: DataColumn<T>[];
  rowKey: (keyof T & string) | ((record: T) => string | number);
  toolbar?: ReactNode;
  /** Row checkboxes for batch actions (the screen keeps the selection). */
  rowSelection?: TableProps<T>['rowSelection'];
  /** Tree rows: records with `children` (e.g. channel tag rows) expand. */
  expandable?: TableProps<T>['expandable'];
  /** 'small' for wide tables with many columns. */
  size?: TableProps<T>['size'];
  rowClassName?: (record: T) => string;
  pageSizeStorageKey?: string;
}

function initialPageSize(key: string): number {
  const stored = Number(readString(key));
  return (pageSizeOptions as readonly number[]).includes(stored) ? stored : defaultPageSize;
}

/** The one list table: paging, page size (kept in local storage) and column visibility persistence. */
export function DataTable<T extends object>({
  tableId,
  queryKey,
  fetchPage,
  columns,
  rowKey,
  toolbar,
  rowClassName,
  rowSelection,
  expandable,
  size,
  pageSizeStorageKey = StorageKey.pageSize,
}: DataTableProps<T>) {
  const { t } = useTranslation();
  const filterKey = JSON.stringify(queryKey);
  const [paging, setPaging] = useState({ filterKey, page: 1 });
  const page = paging.filterKey === filterKey ? paging.page : 1;
  const [pageSize, setPageSize] = useState(() => initialPageSize(pageSizeStorageKey));
  const columnsKey = `${tableId}-table-columns`;
  const [hidden, setHidden] = useState<string[]>(() => readJson<string[]>(columnsKey) ?? []);

  const query = useQuery({
    queryKey: [...queryKey, page, pageSize],
    queryFn: () => fetchPage(page, pageSize),
    placeholderData: keepPreviousData,
  });

  const visibleColumns = useMemo(() => columns.filter((column) => !hidden.includes(column.key)), [columns, hidden]);
  const toggleColumn = (key: string, isVisible: boolean) => {
    const next = isVisible ? hidden.filter((item) => item !== key) : [...hidden, key];
    writeJson(columnsKey, next);
    setHidden(next);
  };

  const columnPicker = (
    <Space orientation="vertical">
      {columns.map((column) => (
        <Checkbox
          key={column.key}
          checked={!hidden.includes(column.key)}
          onChange={(event) => toggleColumn(column.key, event.target.checked)}
        >
          {column.title}
        </Checkbox>
      ))}
      <Button
        size="small"
        onClick={() => {
          writeJson(columnsKey, []);
          setHidden([]);
        }}
      >
        {t('table.resetColumns')}
      </Button>
    </Space>
  );

  return (
    <Flex vertical gap={16}>
      <Flex gap={8} wrap justify="space-between" align="center">
        <div style={{ flex: 1, minWidth: 0 }}>{toolbar}</div>
        <Popover content={columnPicker} title={t('table.columns')} trigger="click" placement="bottomRight">
          <Button icon={<SettingOutlined />} aria-label={t('table.columns')} />
        </Popover>
      </Flex>
      <Table<T>
        rowKey={rowKey}
        columns={visibleColumns}
        dataSource={query.data?.items ?? []}
        loading={query.isFetching}
        rowClassName={rowClassName}
        rowSelection={rowSelection}
        expandable={expandable}
        size={size}
        scroll={{ x: 'max-content' }}
        pagination={{
          current: page,
          pageSize,
          total: query.data?.total ?? 0,
          showSizeChanger: true,
          pageSizeOptions: pageSizeOptions.map(String),
          showTotal: (total) => t('table.total', { total }),
          onChange: (nextPage, nextSize) => {
            if (nextSize !== pageSize) {
              writeString(pageSizeStorageKey, String(nextSize));
              setPageSize(nextSize);
              setPaging({ filterKey, page: 1 });
            } else {
              setPaging({ filterKey, page: nextPage });
            }
          },
        }}
      />
    </Flex>
  );
}
