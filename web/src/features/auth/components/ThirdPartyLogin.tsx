import { GithubOutlined, LoginOutlined, WechatOutlined } from '@ant-design/icons';
import { Button, Divider, Space } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { PlatformStatus } from '../../../lib/status';
import { startOAuth, type OAuthProvider } from '../../../lib/oauth';
import { TelegramLoginButton } from './TelegramLoginButton';
import { WeChatLoginModal } from './WeChatLoginModal';

/** Third-party sign-in buttons, each only when enabled in the status. */
export function ThirdPartyLogin({ status }: { status: PlatformStatus | null }) {
  const { t } = useTranslation();
  const [isWeChatOpen, setWeChatOpen] = useState(false);
  if (!status) return null;
  const hasAny = status.github_oauth || status.oidc_enabled || status.linuxdo_oauth || status.wechat_login || status.telegram_oauth;
  if (!hasAny) return null;

  const start = (provider: OAuthProvider) => startOAuth(provider, status);

  return (
    <>
      <Divider plain>{t('auth.thirdParty')}</Divider>
      <Space orientation="vertical" style={{ width: '100%' }}>
        {status.github_oauth && (
          <Button block icon={<GithubOutlined />} onClick={() => void start('github')}>
            {t('auth.withGitHub')}
          </Button>
        )}
        {status.oidc_enabled && (
          <Button block icon={<LoginOutlined />} onClick={() => void start('oidc')}>
            {t('auth.withOidc')}
          </Button>
        )}
        {status.linuxdo_oauth && (
          <Button block icon={<LoginOutlined />} onClick={() => void start('linuxdo')}>
            {t('auth.withLinuxDo')}
          </Button>
        )}
        {status.wechat_login && (
          <Button block icon={<WechatOutlined />} onClick={() => setWeChatOpen(true)}>
            {t('auth.withWeChat')}
          </Button>
        )}
        {status.telegram_oauth && status.telegram_bot_name && <TelegramLoginButton botName={status.telegram_bot_name} />}
      </Space>
      <WeChatLoginModal open={isWeChatOpen} qrcode={status.wechat_qrcode} onClose={() => setWeChatOpen(false)} />
    </>
  );
}
