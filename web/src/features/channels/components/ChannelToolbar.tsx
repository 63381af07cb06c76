import { PlusOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import type { useChannelActions } from '../hooks/useChannelActions';

type Actions = ReturnType<typeof useChannelActions>;

interface Props {
  actions: Actions;
  selectedIds: number[];
  onCreate: () => void;
  onBatchTag: () => void;
  onBatchDeleted: () => void;
}

/** Create and the whole-table actions: test all, update all balances, delete disabled, fix, batch delete, batch tag. */
export function ChannelToolbar({ actions, selectedIds, onCreate, onBatchTag, onBatchDeleted }: Props) {
  const { t } = useTranslation();
  const confirmed = (title: string, label: string, onConfirm: () => unknown, danger = false) => (
    <Popconfirm
      title={title}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      okButtonProps={{ danger }}
      onConfirm={() => void onConfirm()}
    >
      <Button danger={danger}>{label}</Button>
    </Popconfirm>
  );
  return (
    <Space wrap>
      <Button type="primary" icon={<PlusOutlined />} onClick={onCreate}>
        {t('channels.create')}
      </Button>
      {confirmed(t('channels.confirmTestAll'), t('channels.testAll'), actions.testAll)}
      {confirmed(t('channels.confirmUpdateAll'), t('channels.updateAllBalances'), actions.updateAllBalances)}
      {confirmed(t('channels.confirmDeleteDisabled'), t('channels.deleteDisabled'), actions.deleteDisabled, true)}
      {confirmed(t('channels.confirmFix'), t('channels.fix'), actions.fix)}
      <Button
        danger
        onClick={async () => {
          const result = await actions.deleteMany(selectedIds);
          if (result !== undefined) onBatchDeleted();
        }}
      >
        {t('channels.batchDelete')}
      </Button>
      <Button onClick={onBatchTag}>{t('channels.batchTag')}</Button>
    </Space>
  );
}
