import { Button, Result } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation } from 'react-router';
import { isAdmin, useCurrentUser } from '../lib/user-store';

/** Protected routes: a signed-out visitor goes to /login. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return <>{children}</>;
}

/** Admin routes: signed-out visitors sign in first, non-admins are refused. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const user = useCurrentUser();
  const { t } = useTranslation();
  if (!user) return <Navigate to="/login" replace />;
  if (!isAdmin(user)) {
    return (
      <Result
        status="403"
        title="403"
        subTitle={t('guard.adminOnly')}
        extra={
          <Link to="/">
            <Button type="primary">{t('notFound.backHome')}</Button>
          </Link>
        }
      />
    );
  }
  return <>{children}</>;
}
