import { CopyOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { TokenStatus } from '@modelgate/shared';
import { Alert, Button, Card, Flex, Form, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FilterForm } from '../../../components/FilterForm';
import { DataTable } from '../../../components/DataTable';
import { copyText } from '../../../lib/clipboard';
import { showError, showSuccess } from '../../../lib/feedback';
import type { Token } from '@modelgate/shared';
import { useDeleteToken } from '../api/delete-token';
import { fetchTokens } from '../api/get-tokens';
import { tokenKeys, type TokenFilters } from '../api/keys';
import { useUpdateTokenStatus } from '../api/update-token-status';
import { fullKey } from '../hooks/chat-links';
import { TokenEditorDrawer } from './TokenEditorDrawer';
import { useTokenColumns } from './useTokenColumns';

/** The signed-in user's tokens: banner, search, table, create/edit drawer, copy selected. */
export function TokenListPage() {
  const { t } = useTranslation();
  const deleteToken = useDeleteToken();
  const updateTokenStatus = useUpdateTokenStatus();
  const [filters, setFilters] = useState<TokenFilters>({ keyword: '', token: '' });
  const [selected, setSelected] = useState<Token[]>([]);
  const [editor, setEditor] = useState<{ id: number | null } | null>(null);

  const columns = useTokenColumns({
    onEdit: (id) => setEditor({ id }),
    onDelete: async (id) => {
      try {
        await deleteToken.mutateAsync(id);
        showSuccess(t('tokens.msg.deleted'));
        setSelected((current) => current.filter((token) => token.id !== id));
      } catch {
        // shown by the http client
      }
    },
    onToggle: async (token, isEnabled) => {
      try {
        await updateTokenStatus.mutateAsync({ id: token.id, status: isEnabled ? TokenStatus.enabled : TokenStatus.disabled });
        showSuccess(t('tokens.msg.updated'));
      } catch {
        // shown by the http client (an expired or exhausted token cannot be enabled)
      }
    },
  });

  const copySelected = () => {
    if (selected.length === 0) {
      showError(t('tokens.msg.selectionRequired'));
      return;
    }
    void copyText(selected.map((token) => `${token.name}    ${fullKey(token.key)}`).join('\n'));
  };

  return (
    <Card>
      <Flex vertical gap={12}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('tokens.title')}
        </Typography.Title>
        <Alert type="warning" showIcon title={t('tokens.banner')} />
        <DataTable<Token>
          tableId="tokens"
          queryKey={tokenKeys.list(filters)}
          fetchPage={(page, pageSize) => fetchTokens(filters, page, pageSize)}
          columns={columns}
          rowKey="id"
          size="small"
          rowSelection={{ selectedRowKeys: selected.map((token) => token.id), onChange: (_keys, rows) => setSelected(rows) }}
          toolbar={
            <Space wrap>
              <FilterForm<TokenFilters>
                initialValues={filters}
                onSearch={(values) => setFilters({ keyword: values.keyword ?? '', token: values.token ?? '' })}
              >
                <Form.Item name="keyword">
                  <Input
                    allowClear
                    aria-label={t('tokens.keyword')}
                    placeholder={t('tokens.keyword')}
                    prefix={<SearchOutlined />}
                    style={{ width: 180 }}
                  />
                </Form.Item>
                <Form.Item name="token">
                  <Input allowClear aria-label={t('tokens.tokenSearch')} placeholder={t('tokens.tokenSearch')} style={{ width: 200 }} />
                </Form.Item>
              </FilterForm>
              <Button icon={<PlusOutlined />} onClick={() => setEditor({ id: null })}>
                {t('tokens.create')}
              </Button>
              <Button icon={<CopyOutlined />} onClick={copySelected}>
                {t('tokens.copySelected')}
              </Button>
            </Space>
          }
        />
      </Flex>
      <TokenEditorDrawer open={editor !== null} tokenId={editor?.id ?? null} onClose={() => setEditor(null)} />
    </Card>
  );
}
