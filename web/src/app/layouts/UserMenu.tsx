import { LogoutOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Button, Dropdown, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useLogout } from '../../lib/api/logout';
import { useCurrentUser } from '../../lib/user-store';

/** Signed in: avatar with logout. Signed out: login and register (register hidden on phones and in self-use mode). */
export function UserMenu({ isMobile, isSelfUse }: { isMobile: boolean; isSelfUse: boolean }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const signOut = useLogout();

  if (!user) {
    return (
      <Space size={4}>
        <Link to="/login">
          <Button type="primary">{t('nav.login')}</Button>
        </Link>
        {!isMobile && !isSelfUse && (
          <Link to="/register">
            <Button>{t('nav.register')}</Button>
          </Link>
        )}
      </Space>
    );
  }

  // A failed logout (the server unreachable) still signs this browser out: the hook drops the stored user either way.
  const logout = () =>
    signOut
      .mutateAsync()
      .catch(() => undefined)
      .finally(() => navigate('/login'));
  const name = user.display_name || user.username;
  return (
    <Dropdown
      menu={{
        items: [
          { key: 'personal', icon: <UserOutlined />, label: t('menu.personal') },
          { key: 'logout', icon: <LogoutOutlined />, label: t('nav.logout') },
        ],
        onClick: ({ key }) => {
          if (key === 'logout') void logout();
          else navigate('/personal');
        },
      }}
    >
      <Button type="text" aria-label={t('nav.account')} style={{ paddingInline: 6 }}>
        <Space size={6}>
          <Avatar size="small" style={{ background: '#2f6bff' }}>
            {name.slice(0, 1).toUpperCase()}
          </Avatar>
          {!isMobile && <span>{name}</span>}
        </Space>
      </Button>
    </Dropdown>
  );
}
