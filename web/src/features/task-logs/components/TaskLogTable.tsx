import { defaultPageSize } from '@modelgate/shared';
import { Table } from 'antd';
import { useState } from 'react';
import type { DataColumn } from '../../../components/DataTable';
import type { UseQueryResult } from '@tanstack/react-query';
import type { TaskLogFilters } from '../api/keys';

interface Props<T> {
  filters: TaskLogFilters;
  isAdmin: boolean;
  /** The log's page hook (useDrawingTasks, useMusicTasks); `page` counts from 0. */
  usePage: (filters: TaskLogFilters, isAdmin: boolean, page: number, pageSize: number) => UseQueryResult<T[]>;
  columns: DataColumn<T>[];
}

/**
 * A task log table. The server answers one page (from 0) as a plain list with no total: a full page
 * offers the next one, which is fetched when opened; a short page is the last.
 */
export function TaskLogTable<T extends { id: number }>({ filters, isAdmin, usePage, columns }: Props<T>) {
  const [paging, setPaging] = useState({ filterKey: '', page: 1, pageSize: defaultPageSize });
  const filterKey = JSON.stringify(filters);
  const page = paging.filterKey === filterKey ? paging.page : 1;
  const { pageSize } = paging;
  const query = usePage(filters, isAdmin, page - 1, pageSize);
  const rows = query.data ?? [];
  const total = (page - 1) * pageSize + rows.length + (rows.length === pageSize ? 1 : 0);
  return (
    <Table<T>
      rowKey="id"
      size="small"
      loading={query.isFetching}
      columns={columns}
      dataSource={rows}
      scroll={{ x: 'max-content' }}
      pagination={{
        current: page,
        pageSize,
        total,
        showSizeChanger: true,
        onChange: (next, size) => setPaging({ filterKey, page: size !== pageSize ? 1 : next, pageSize: size }),
      }}
    />
  );
}
