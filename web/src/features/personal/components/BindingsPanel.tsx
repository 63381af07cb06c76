import { GithubOutlined, LoginOutlined, MailOutlined, SendOutlined, WechatOutlined } from '@ant-design/icons';
import { Button, List, Typography } from 'antd';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { startOAuth, type OAuthProvider } from '../../../lib/oauth';
import { useStatus, type PlatformStatus } from '../../../lib/status';
import type { SelfUser } from '../api/personal';
import { EmailBindModal } from './EmailBindModal';
import { WeChatBindModal } from './WeChatBindModal';

interface BindingRow {
  key: string;
  icon: ReactNode;
  label: string;
  value: string;
  isEnabled: boolean;
  onBind: () => void;
}

/** Account bindings: email, GitHub, OIDC, Linux DO, WeChat, Telegram (each when enabled). */
export function BindingsPanel({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const [modal, setModal] = useState<'email' | 'wechat' | null>(null);
  const oauth = (provider: OAuthProvider) => () => status && void startOAuth(provider, status as PlatformStatus);
  const rows: BindingRow[] = [
    { key: 'email', icon: <MailOutlined />, label: t('personal.bindEmail'), value: user.email, isEnabled: true, onBind: () => setModal('email') },
    { key: 'github', icon: <GithubOutlined />, label: 'GitHub', value: user.github_id, isEnabled: !!status?.github_oauth, onBind: oauth('github') },
    { key: 'oidc', icon: <LoginOutlined />, label: 'OIDC', value: user.oidc_id, isEnabled: !!status?.oidc_enabled, onBind: oauth('oidc') },
    { key: 'linuxdo', icon: <LoginOutlined />, label: 'Linux DO', value: user.linux_do_id, isEnabled: !!status?.linuxdo_oauth, onBind: oauth('linuxdo') },
    { key: 'wechat', icon: <WechatOutlined />, label: t('personal.bindWeChat'), value: user.wechat_id, isEnabled: !!status?.wechat_login, onBind: () => setModal('wechat') },
    {
      key: 'telegram',
      icon: <SendOutlined />,
      label: 'Telegram',
      value: user.telegram_id,
      isEnabled: !!status?.telegram_oauth,
      onBind: () => window.open(`https://t.me/${status?.telegram_bot_name ?? ''}`, '_blank', 'noopener'),
    },
  ];
  return (
    <>
      <List
        dataSource={rows}
        renderItem={(row) => (
          <List.Item
            actions={[
              <Button key="bind" size="small" disabled={!row.isEnabled || (!!row.value && row.key !== 'email')} onClick={row.onBind}>
                {row.value ? (row.key === 'email' ? t('personal.rebind') : t('personal.bound')) : t('personal.bind')}
              </Button>,
            ]}
          >
            <List.Item.Meta
              avatar={row.icon}
              title={row.label}
              description={
                <Typography.Text type="secondary">{row.value || (row.isEnabled ? t('personal.notBound') : t('personal.notEnabled'))}</Typography.Text>
              }
            />
          </List.Item>
        )}
      />
      <EmailBindModal open={modal === 'email'} onClose={() => setModal(null)} />
      <WeChatBindModal open={modal === 'wechat'} qrcode={status?.wechat_qrcode ?? ''} onClose={() => setModal(null)} />
    </>
  );
}
