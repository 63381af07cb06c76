import { CopyOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons';
import { RedemptionStatus, type Redemption } from '@modelgate/shared';
import { Button, Card, Flex, Form, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FilterForm } from '../../../components/FilterForm';
import { DataTable } from '../../../components/DataTable';
import { copyText } from '../../../lib/clipboard';
import { showError, showSuccess } from '../../../lib/feedback';
import { useDeleteRedemption } from '../api/delete-redemption';
import { fetchRedemptions } from '../api/get-redemptions';
import { redemptionKeys } from '../api/keys';
import { useSetRedemptionStatus } from '../api/update-redemption-status';
import { CreatedCodesModal } from './CreatedCodesModal';
import { RedemptionEditorDrawer } from './RedemptionEditorDrawer';
import { useRedemptionColumns } from './useRedemptionColumns';

/** Redemption code management (admin). */
export function RedemptionListPage() {
  const { t } = useTranslation();
  const deleteRedemption = useDeleteRedemption();
  const setRedemptionStatus = useSetRedemptionStatus();
  const [keyword, setKeyword] = useState('');
  const [selected, setSelected] = useState<Redemption[]>([]);
  const [editor, setEditor] = useState<{ id: number | null } | null>(null);
  const [createdKeys, setCreatedKeys] = useState<string[]>([]);
  const run = async (call: () => Promise<unknown>, success: string) => {
    try {
      await call();
      showSuccess(success);
    } catch {
      // shown by the http client (the list refreshes either way)
    }
  };
  const columns = useRedemptionColumns({
    onEdit: (id) => setEditor({ id }),
    onDelete: (id) => run(() => deleteRedemption.mutateAsync(id), t('redemptions.msg.deleted')),
    onStatus: (id, status) => run(() => setRedemptionStatus.mutateAsync({ id, status }), t('redemptions.msg.updated')),
  });
  const copySelected = () => {
    if (selected.length === 0) {
      showError(t('redemptions.msg.selectionRequired'));
      return;
    }
    void copyText(selected.map((item) => `${item.name}    ${item.key}`).join('\n'));
  };
  return (
    <Card>
      <Flex vertical gap={12}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('redemptions.title')}
        </Typography.Title>
        <DataTable<Redemption>
          tableId="redemptions"
          queryKey={redemptionKeys.list(keyword)}
          fetchPage={(page, pageSize) => fetchRedemptions(keyword, page, pageSize)}
          columns={columns}
          rowKey="id"
          rowClassName={(item) => (item.status === RedemptionStatus.unused ? '' : 'mg-row-cancelled')}
          rowSelection={{ selectedRowKeys: selected.map((item) => item.id), onChange: (_keys, rows) => setSelected(rows) }}
          toolbar={
            <Space wrap>
              <FilterForm<{ keyword?: string }> onSearch={(values) => setKeyword(values.keyword ?? '')}>
                <Form.Item name="keyword">
                  <Input
                    allowClear
                    aria-label={t('redemptions.keyword')}
                    placeholder={t('redemptions.keywordPlaceholder')}
                    prefix={<SearchOutlined />}
                    style={{ width: 240 }}
                  />
                </Form.Item>
              </FilterForm>
              <Button icon={<PlusOutlined />} onClick={() => setEditor({ id: null })}>
                {t('redemptions.create')}
              </Button>
              <Button icon={<CopyOutlined />} onClick={copySelected}>
                {t('redemptions.copySelected')}
              </Button>
            </Space>
          }
        />
      </Flex>
      <RedemptionEditorDrawer
        open={editor !== null}
        redemptionId={editor?.id ?? null}
        onClose={() => setEditor(null)}
        onCreated={setCreatedKeys}
      />
      <CreatedCodesModal keys={createdKeys} onClose={() => setCreatedKeys([])} />
    </Card>
  );
}
