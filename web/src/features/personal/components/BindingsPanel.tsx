import { GithubOutlined, LoginOutlined, MailOutlined, SendOutlined, WechatOutlined } from '@ant-design/icons';
import { Button, List, Popconfirm, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { startOAuth, type OAuthProvider } from '../../../lib/oauth';
import { useStatus, type PlatformStatus } from '../../../lib/status';
import type { SelfUser } from '@modelgate/shared';
import { useUnbindAccount, type BoundProvider } from '../api/unbind-account';
import { EmailBindModal } from './EmailBindModal';
import { TelegramBindModal } from './TelegramBindModal';
import { WeChatBindModal } from './WeChatBindModal';

interface BindingRow {
  key: 'email' | BoundProvider;
  icon: ReactNode;
  label: string;
  value: string;
  isEnabled: boolean;
  onBind: () => void;
}

/** The self row's fields the panel shows (the self row from GET /api/user/self). */
type BoundAccounts = Pick<SelfUser, 'email' | 'github_id' | 'oidc_id' | 'linux_do_id' | 'wechat_id' | 'telegram_id'>;

/** Account bindings: email, GitHub, OIDC, Linux DO, WeChat, Telegram (each when enabled); bound ones can be unbound. */
export function BindingsPanel({ user }: { user: BoundAccounts }) {
  const { t } = useTranslation();
  const unbindMutation = useUnbindAccount();
  const { data: status } = useStatus();
  const [modal, setModal] = useState<'email' | 'wechat' | 'telegram' | null>(null);
  const oauth = (provider: OAuthProvider) => () => status && void startOAuth(provider, status as PlatformStatus);
  const unbind = async (row: BindingRow) => {
    if (row.key === 'email') return;
    try {
      await unbindMutation.mutateAsync(row.key);
      showSuccess(t('oauth.unbound'));
    } catch {
      // shown by the http client
    }
  };
  const rows: BindingRow[] = [
    {
      key: 'email',
      icon: <MailOutlined />,
      label: t('personal.bindEmail'),
      value: user.email,
      isEnabled: true,
      onBind: () => setModal('email'),
    },
    {
      key: 'github',
      icon: <GithubOutlined />,
      label: 'GitHub',
      value: user.github_id,
      isEnabled: !!status?.github_oauth,
      onBind: oauth('github'),
    },
    { key: 'oidc', icon: <LoginOutlined />, label: 'OIDC', value: user.oidc_id, isEnabled: !!status?.oidc_enabled, onBind: oauth('oidc') },
    {
      key: 'linuxdo',
      icon: <LoginOutlined />,
      label: 'Linux DO',
      value: user.linux_do_id,
      isEnabled: !!status?.linuxdo_oauth,
      onBind: oauth('linuxdo'),
    },
    {
      key: 'wechat',
      icon: <WechatOutlined />,
      label: t('personal.bindWeChat'),
      value: user.wechat_id,
      isEnabled: !!status?.wechat_login,
      onBind: () => setModal('wechat'),
    },
    {
      key: 'telegram',
      icon: <SendOutlined />,
      label: 'Telegram',
      value: user.telegram_id,
      isEnabled: !!status?.telegram_oauth,
      onBind: () => setModal('telegram'),
    },
  ];
  const actionOf = (row: BindingRow) => {
    if (row.value && row.key !== 'email') {
      return (
        <Popconfirm
          key="unbind"
          title={t('oauth.unbindConfirm', { provider: row.label })}
          okText={t('common.confirm')}
          cancelText={t('common.cancel')}
          onConfirm={() => unbind(row)}
        >
          <Button size="small" danger>
            {t('oauth.unbind')}
          </Button>
        </Popconfirm>
      );
    }
    return (
      <Button key="bind" size="small" disabled={!row.isEnabled} onClick={row.onBind}>
        {row.value ? t('personal.rebind') : t('personal.bind')}
      </Button>
    );
  };
  return (
    <>
      <List
        dataSource={rows}
        renderItem={(row) => (
          <List.Item actions={[actionOf(row)]} data-testid={`binding-${row.key}`}>
            <List.Item.Meta
              avatar={row.icon}
              title={row.label}
              description={
                <Typography.Text type="secondary">
                  {row.value || (row.isEnabled ? t('personal.notBound') : t('personal.notEnabled'))}
                </Typography.Text>
              }
            />
          </List.Item>
        )}
      />
      <EmailBindModal open={modal === 'email'} onClose={() => setModal(null)} />
      <WeChatBindModal open={modal === 'wechat'} qrcode={status?.wechat_qrcode ?? ''} onClose={() => setModal(null)} />
      <TelegramBindModal open={modal === 'telegram'} botName={status?.telegram_bot_name ?? ''} onClose={() => setModal(null)} />
    </>
  );
}
