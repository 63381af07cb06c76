import { Grid, Layout, Spin, theme } from 'antd';
import { Suspense, useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { readFlag, StorageKey, writeString } from '../../lib/storage-keys';
import { storedStatus, useStatus } from '../../lib/status';
import { useCurrentUser } from '../../lib/user-store';
import { SiteFooter } from './SiteFooter';
import { SideMenu, siderWidth } from './SideMenu';
import { TopBar } from './TopBar';

const isSidebarHidden = (path: string) => path === '/' || path === '/setup' || path.startsWith('/chat/') || path === '/chat';

/** The console frame: setup redirect, top bar, side menu (drawer on phones), content and footer. */
export function AppShell() {
  const { data, isPending } = useStatus();
  const user = useCurrentUser();
  const location = useLocation();
  const screens = Grid.useBreakpoint();
  const isMobile = screens.md === false;
  const [collapsed, setCollapsed] = useState(() => readFlag(StorageKey.defaultCollapseSidebar));
  const [drawerOpen, setDrawerOpen] = useState(false);
  const { token } = theme.useToken();
  const status = data ?? storedStatus();

  if (isPending && !status) {
    return <Spin size="large" fullscreen />;
  }
  if (data && !data.setup && location.pathname !== '/setup') return <Navigate to="/setup" replace />;
  // Setup done: the root it signed in lands in the console; anyone else on /setup goes home.
  if (data && data.setup && location.pathname === '/setup') return <Navigate to={user ? '/token' : '/'} replace />;

  const hasSider = !isSidebarHidden(location.pathname);
  const toggleCollapsed = () => {
    writeString(StorageKey.defaultCollapseSidebar, String(!collapsed));
    setCollapsed(!collapsed);
  };

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <TopBar status={status} hasMenuButton={hasSider && isMobile} onOpenMenu={() => setDrawerOpen(true)} />
      <Layout>
        {hasSider && (
          <SideMenu
            status={status}
            isMobile={isMobile}
            collapsed={collapsed}
            onToggleCollapsed={toggleCollapsed}
            drawerOpen={drawerOpen}
            onCloseDrawer={() => setDrawerOpen(false)}
          />
        )}
        <Layout
          style={{
            marginLeft: hasSider && !isMobile ? (collapsed ? siderWidth.collapsed : siderWidth.expanded) : 0,
            transition: 'margin-left 0.2s',
            background: token.colorBgLayout,
          }}
        >
          <Layout.Content style={{ padding: isMobile ? 12 : 24, minHeight: 'calc(100vh - 64px - 70px)' }}>
            <Suspense
              fallback={
                <div style={{ display: 'flex', justifyContent: 'center', padding: 48 }}>
                  <Spin />
                </div>
              }
            >
              <Outlet />
            </Suspense>
          </Layout.Content>
          <SiteFooter version={status?.version} />
        </Layout>
      </Layout>
    </Layout>
  );
}
