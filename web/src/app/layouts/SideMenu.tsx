import {
  ApiOutlined,
  CrownOutlined,
  AppstoreOutlined,
  AuditOutlined,
  CommentOutlined,
  DashboardOutlined,
  ExperimentOutlined,
  FileTextOutlined,
  GiftOutlined,
  KeyOutlined,
  MenuFoldOutlined,
  MenuUnfoldOutlined,
  PictureOutlined,
  ScheduleOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
  WalletOutlined,
} from '@ant-design/icons';
import { Button, Drawer, Layout, Menu, type MenuProps } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { readFlag, readJson, StorageKey } from '../../lib/storage-keys';
import type { PlatformStatus } from '../../lib/status';
import { isAdmin, isRoot, useCurrentUser } from '../../lib/user-store';

export const siderWidth = { expanded: 200, collapsed: 60 } as const;

type MenuItem = Required<MenuProps>['items'][number];

/** Chat entries are stored as [{ name: link }, ...]; each becomes /chat/{index}. */
function chatEntries(): string[] {
  const chats = readJson<unknown[]>(StorageKey.chats);
  if (!Array.isArray(chats)) return [];
  return chats.flatMap((entry) => (entry && typeof entry === 'object' ? Object.keys(entry as object).slice(0, 1) : []));
}

function useMenuItems(collapsed: boolean): MenuItem[] {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const admin = isAdmin(user);
  const chats = chatEntries();
  const section = (key: string, label: string, children: MenuItem[]): MenuItem[] =>
    collapsed ? [{ type: 'divider', key: `${key}-divider` }, ...children] : [{ type: 'group', key, label, children }];

  const console: MenuItem[] = [
    readFlag(StorageKey.enableDataExport) && { key: '/detail', icon: <DashboardOutlined />, label: t('menu.dashboard') },
    { key: '/token', icon: <KeyOutlined />, label: t('menu.tokens') },
    { key: '/log', icon: <FileTextOutlined />, label: t('menu.log') },
    readFlag(StorageKey.enableDrawing) && { key: '/midjourney', icon: <PictureOutlined />, label: t('menu.drawingLog') },
    readFlag(StorageKey.enableTask) && { key: '/task', icon: <ScheduleOutlined />, label: t('menu.taskLog') },
  ].filter(Boolean) as MenuItem[];

  const chat: MenuItem[] = [
    { key: '/playground', icon: <ExperimentOutlined />, label: t('menu.playground') },
    chats.length > 0 && {
      key: 'chat',
      icon: <CommentOutlined />,
      label: t('menu.chat'),
      children: chats.map((name, index) => ({ key: `/chat/${index}`, label: name })),
    },
  ].filter(Boolean) as MenuItem[];

  const adminItems: MenuItem[] = admin
    ? [
        { key: '/channel', icon: <ApiOutlined />, label: t('menu.channels') },
        { key: '/redemption', icon: <GiftOutlined />, label: t('menu.redemption') },
        { key: '/user', icon: <TeamOutlined />, label: t('menu.users') },
        { key: '/plans', icon: <AppstoreOutlined />, label: t('menu.plans') },
        { key: '/setting', icon: <SettingOutlined />, label: t('menu.settings') },
        ...(isRoot(user) ? [{ key: '/audit', icon: <AuditOutlined />, label: t('audit.menu') }] : []),
      ]
    : [];

  const personal: MenuItem[] = [
    { key: '/topup', icon: <WalletOutlined />, label: t('menu.topup') },
    { key: '/subscription', icon: <CrownOutlined />, label: t('menu.subscription') },
    { key: '/personal', icon: <UserOutlined />, label: t('menu.personal') },
  ];

  return [
    ...section('chat-section', t('menu.sectionChat'), chat),
    ...section('console-section', t('menu.sectionConsole'), console),
    ...(adminItems.length ? section('admin-section', t('menu.sectionAdmin'), adminItems) : []),
    ...section('personal-section', t('menu.sectionPersonal'), personal),
  ];
}

interface SideMenuProps {
  status: PlatformStatus | null;
  isMobile: boolean;
  collapsed: boolean;
  onToggleCollapsed: () => void;
  drawerOpen: boolean;
  onCloseDrawer: () => void;
}

/** The side menu: 200 wide, 60 collapsed; a Drawer on phone widths. */
export function SideMenu({ isMobile, collapsed, onToggleCollapsed, drawerOpen, onCloseDrawer }: SideMenuProps) {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const isCollapsed = collapsed && !isMobile;
  const items = useMenuItems(isCollapsed);
  const selected = location.pathname.startsWith('/chat/') ? location.pathname : `/${location.pathname.split('/')[1]}`;
  const menu = (
    <Menu
      mode="inline"
      inlineCollapsed={isCollapsed}
      selectedKeys={[selected]}
      items={items}
      style={{ borderInlineEnd: 'none' }}
      aria-label={t('menu.label')}
      onClick={({ key }) => {
        navigate(key);
        onCloseDrawer();
      }}
    />
  );

  if (isMobile) {
    return (
      <Drawer
        placement="left"
        open={drawerOpen}
        onClose={onCloseDrawer}
        size={siderWidth.expanded + 40}
        title={t('menu.label')}
        styles={{ body: { padding: 0 } }}
      >
        {menu}
      </Drawer>
    );
  }
  return (
    <Layout.Sider
      theme="light"
      width={siderWidth.expanded}
      collapsedWidth={siderWidth.collapsed}
      collapsed={collapsed}
      trigger={null}
      style={{ position: 'fixed', left: 0, top: 64, bottom: 0, overflow: 'auto', zIndex: 10 }}
    >
      <div style={{ display: 'flex', flexDirection: 'column', height: '100%' }}>
        <div style={{ flex: 1, overflow: 'auto' }}>{menu}</div>
        <Button
          type="text"
          block
          aria-label={collapsed ? t('menu.expand') : t('menu.collapse')}
          icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
          onClick={onToggleCollapsed}
          style={{ height: 44, borderRadius: 0 }}
        />
      </div>
    </Layout.Sider>
  );
}
