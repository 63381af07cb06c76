import { MenuOutlined, MoonOutlined, SunOutlined, TranslationOutlined } from '@ant-design/icons';
import { Button, Dropdown, Grid, Layout, Menu, Space, Tag, theme, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { chooseLanguage, currentLanguage, type Language } from '../../lib/i18n';
import { isHttpUrl } from '../../lib/rich-text';
import type { PlatformStatus } from '../../lib/status';
import { useThemeMode } from '../theme';
import { UserMenu } from './UserMenu';

/** Each language names itself, so a person who cannot read the current one still finds theirs. */
const languageNames: Record<Language, string> = { zh: '中文', en: 'English' };
const shortNames: Record<Language, string> = { zh: '中文', en: 'EN' };

interface TopBarProps {
  status: PlatformStatus | null;
  hasMenuButton: boolean;
  onOpenMenu: () => void;
}

/** Top bar: navigation, usage-mode badge, theme switch, language menu and the user entry. */
export function TopBar({ status, hasMenuButton, onOpenMenu }: TopBarProps) {
  const { t } = useTranslation();
  const { mode, setMode } = useThemeMode();
  const { token } = theme.useToken();
  const location = useLocation();
  const navigate = useNavigate();
  const isMobile = Grid.useBreakpoint().md === false;
  const systemName = status?.system_name || 'ModelGate';
  const language = currentLanguage();

  const navItems = [
    { key: '/', label: t('nav.home') },
    { key: '/token', label: t('nav.console') },
    { key: '/pricing', label: t('nav.pricing') },
    ...(status?.docs_link && isHttpUrl(status.docs_link) ? [{ key: 'docs', label: t('nav.docs') }] : []),
    { key: '/about', label: t('nav.about') },
  ];
  const activeNav =
    navItems.find((item) => item.key !== '/' && item.key !== 'docs' && location.pathname.startsWith(item.key))?.key ??
    (location.pathname === '/' ? '/' : '');

  return (
    <Layout.Header
      style={{
        position: 'sticky',
        top: 0,
        zIndex: 20,
        display: 'flex',
        alignItems: 'center',
        gap: 12,
        padding: isMobile ? '0 8px' : '0 20px',
        height: 64,
        background: token.colorBgContainer,
        borderBottom: `1px solid ${token.colorBorderSecondary}`,
      }}
    >
      {hasMenuButton && <Button type="text" icon={<MenuOutlined />} aria-label={t('menu.open')} onClick={onOpenMenu} />}
      <Link
        to="/"
        style={{
          display: 'flex',
          alignItems: 'center',
          gap: 8,
          color: token.colorText,
          fontWeight: 600,
          fontSize: 17,
          whiteSpace: 'nowrap',
        }}
      >
        <img src={status?.logo || '/logo.svg'} alt="" width={28} height={28} style={{ borderRadius: 6 }} />
        {!isMobile && <span>{systemName}</span>}
      </Link>
      {status?.self_use_mode_enabled && <Tag color="cyan">{t('nav.selfUseBadge')}</Tag>}
      {status?.demo_site_enabled && <Tag color="purple">{t('nav.demoBadge')}</Tag>}
      <Menu
        mode="horizontal"
        selectedKeys={[activeNav]}
        items={navItems}
        style={{ flex: 1, minWidth: 0, borderBottom: 'none', background: 'transparent' }}
        onClick={({ key }) => {
          if (key === 'docs') window.open(status?.docs_link, '_blank', 'noopener,noreferrer');
          else navigate(key);
        }}
      />
      <Space size={4}>
        <Tooltip title={mode === 'dark' ? t('nav.lightMode') : t('nav.darkMode')}>
          <Button
            type="text"
            aria-label={mode === 'dark' ? t('nav.lightMode') : t('nav.darkMode')}
            icon={mode === 'dark' ? <SunOutlined /> : <MoonOutlined />}
            onClick={() => setMode(mode === 'dark' ? 'light' : 'dark')}
          />
        </Tooltip>
        <Dropdown
          trigger={['hover', 'click']}
          menu={{
            selectable: true,
            selectedKeys: [language],
            items: [
              { key: 'zh', label: languageNames.zh },
              { key: 'en', label: languageNames.en },
            ],
            onClick: ({ key }) => void chooseLanguage(key as Language),
          }}
        >
          <Button type="text" icon={<TranslationOutlined />} aria-label={t('nav.languageCurrent', { language: languageNames[language] })}>
            {isMobile ? shortNames[language] : languageNames[language]}
          </Button>
        </Dropdown>
        <UserMenu isMobile={isMobile} isSelfUse={!!status?.self_use_mode_enabled} />
      </Space>
    </Layout.Header>
  );
}
