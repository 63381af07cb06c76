import { DownOutlined } from '@ant-design/icons';
import { ChannelStatus } from '@modelgate/shared';
import { Button, Dropdown, Popconfirm, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Channel, ChannelListItem, ChannelTagRow } from '@modelgate/shared';
import { isTagRow } from '../api/get-channels';
import type { useChannelActions } from '../hooks/useChannelActions';

export interface RowHandlers {
  onEdit: (id: number) => void;
  onEditTag: (row: ChannelTagRow) => void;
  onPickTestModel: (channel: Channel) => void;
}

type Actions = ReturnType<typeof useChannelActions>;

function Confirmed({ title, label, danger, onConfirm }: { title: string; label: string; danger?: boolean; onConfirm: () => unknown }) {
  const { t } = useTranslation();
  return (
    <Popconfirm
      title={title}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      okButtonProps={{ danger }}
      onConfirm={() => void onConfirm()}
    >
      <Button size="small" type="link" danger={danger}>
        {label}
      </Button>
    </Popconfirm>
  );
}

/** Tag rows: enable all, disable all, edit the tag. Channel rows: test, enable/disable, edit, copy, delete. */
export function ChannelRowActions({ item, actions, handlers }: { item: ChannelListItem; actions: Actions; handlers: RowHandlers }) {
  const { t } = useTranslation();
  const [isTesting, setTesting] = useState(false);
  if (isTagRow(item)) {
    return (
      <Space size={0}>
        <Button size="small" type="link" onClick={() => void actions.setTagEnabled(item.tag, true)}>
          {t('channels.enableAll')}
        </Button>
        <Button size="small" type="link" danger onClick={() => void actions.setTagEnabled(item.tag, false)}>
          {t('channels.disableAll')}
        </Button>
        <Button size="small" type="link" onClick={() => handlers.onEditTag(item)}>
          {t('channels.editTag')}
        </Button>
      </Space>
    );
  }
  const test = async () => {
    setTesting(true);
    await actions.test(item.id, item.name);
    setTesting(false);
  };
  const isEnabled = item.status === ChannelStatus.enabled;
  return (
    <Space size={0}>
      <Space.Compact size="small">
        <Button size="small" loading={isTesting} onClick={() => void test()}>
          {t('channels.test')}
        </Button>
        <Dropdown menu={{ items: [{ key: 'pick', label: t('channels.testWithModel') }], onClick: () => handlers.onPickTestModel(item) }}>
          <Button size="small" icon={<DownOutlined />} aria-label={t('channels.testWithModel')} />
        </Dropdown>
      </Space.Compact>
      {isEnabled ? (
        <Button size="small" type="link" danger onClick={() => void actions.setStatus(item.id, ChannelStatus.manuallyDisabled)}>
          {t('channels.disable')}
        </Button>
      ) : (
        <Button size="small" type="link" onClick={() => void actions.setStatus(item.id, ChannelStatus.enabled)}>
          {t('channels.enable')}
        </Button>
      )}
      <Button size="small" type="link" onClick={() => handlers.onEdit(item.id)}>
        {t('common.edit')}
      </Button>
      <Confirmed title={t('channels.confirmCopy', { name: item.name })} label={t('common.copy')} onConfirm={() => actions.copy(item.id)} />
      <Confirmed
        title={t('channels.confirmDelete', { name: item.name })}
        label={t('channels.delete')}
        danger
        onConfirm={() => actions.remove(item.id)}
      />
    </Space>
  );
}
