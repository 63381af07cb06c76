import { DownOutlined } from '@ant-design/icons';
import { Button, Dropdown, Popconfirm, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';
import type { Token } from '@modelgate/shared';
import { chatUrl, fullKey, readChatLinks } from '../hooks/chat-links';

/** Copy key (with sk-), open in a chat app (Chats option), edit, delete. */
export function TokenRowActions({
  token,
  onEdit,
  onDelete,
}: {
  token: Token;
  onEdit: (id: number) => void;
  onDelete: (id: number) => unknown;
}) {
  const { t } = useTranslation();
  const chats = readChatLinks();
  return (
    <Space size={0}>
      <Button size="small" type="link" onClick={() => void copyText(fullKey(token.key))}>
        {t('tokens.copyKey')}
      </Button>
      {chats.length > 0 && (
        <Dropdown
          menu={{
            items: chats.map((chat, index) => ({ key: String(index), label: chat.name })),
            onClick: ({ key }) => window.open(chatUrl(chats[Number(key)]!.link, token.key), '_blank', 'noopener'),
          }}
        >
          <Button size="small" type="link">
            {t('tokens.chat')} <DownOutlined />
          </Button>
        </Dropdown>
      )}
      <Button size="small" type="link" onClick={() => onEdit(token.id)}>
        {t('common.edit')}
      </Button>
      <Popconfirm
        title={t('tokens.confirmDelete', { name: token.name })}
        okText={t('common.confirm')}
        cancelText={t('common.cancel')}
        okButtonProps={{ danger: true }}
        onConfirm={() => void onDelete(token.id)}
      >
        <Button size="small" type="link" danger>
          {t('tokens.delete')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
