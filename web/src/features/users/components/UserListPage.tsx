import { Card, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useLocation } from 'react-router';
import { DataTable } from '../../../components/DataTable';
import { useCurrentUser } from '../../../lib/user-store';
import { fetchUsers, isCancelled } from '../api/get-users';
import { userKeys, type UserFilters } from '../api/keys';
import { AddUserDrawer } from './AddUserDrawer';
import { EditUserDrawer } from './EditUserDrawer';
import { UserFilterBar } from './UserFilterBar';
import { useUserColumns } from './useUserColumns';

/** User management (admin): search, paged table, add and edit drawers, row actions. */
export function UserListPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const params = useParams();
  const me = useCurrentUser();
  const [filters, setFilters] = useState<UserFilters>({ keyword: '', group: '' });
  const [isAddOpen, setAddOpen] = useState(false);
  const routeEditId = params.id ? Number(params.id) : location.pathname === '/user/edit' ? (me?.id ?? null) : null;
  const [editId, setEditId] = useState<number | null>(null);
  const currentEditId = editId ?? routeEditId;
  const columns = useUserColumns((id) => setEditId(id));

  const closeEdit = () => {
    setEditId(null);
    if (routeEditId !== null) navigate('/user', { replace: true });
  };

  return (
    <Card>
      <Typography.Title level={4} style={{ marginTop: 0 }}>
        {t('users.title')}
      </Typography.Title>
      <DataTable
        tableId="users"
        queryKey={userKeys.list(filters)}
        fetchPage={(page, pageSize) => fetchUsers(filters, page, pageSize)}
        columns={columns}
        rowKey="id"
        rowClassName={(user) => (isCancelled(user) ? 'mg-row-cancelled' : '')}
        toolbar={<UserFilterBar onSearch={setFilters} onAdd={() => setAddOpen(true)} />}
      />
      <AddUserDrawer open={isAddOpen} onClose={() => setAddOpen(false)} />
      <EditUserDrawer userId={currentEditId} onClose={closeEdit} />
    </Card>
  );
}
