import { LogoutOutlined, UserOutlined } from '@ant-design/icons';
import { Avatar, Button, Dropdown, Space } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { http } from '../../lib/http';
import { userStore, useCurrentUser } from '../../lib/user-store';

/** Signed in: avatar with logout. Signed out: login and register (register hidden on phones and in self-use mode). */
export function UserMenu({ isMobile, isSelfUse }: { isMobile: boolean; isSelfUse: boolean }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

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

  const logout = async () => {
    try {
      await http.get('/api/user/logout', { silent: true, noAuthRedirect: true });
    } finally {
      userStore.clear();
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'status' });
      navigate('/login');
    }
  };
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
