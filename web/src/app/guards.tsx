import { Button, Result } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useLocation } from 'react-router';
import { isAdmin, isRoot, useCurrentUser } from '../lib/user-store';

/** Protected routes: a signed-out visitor goes to /login. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const user = useCurrentUser();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return <>{children}</>;
}

/** Admin routes: signed-out visitors sign in first, non-admins are refused. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  return (
    <RequireRole allowed={isAdmin} refusal="guard.adminOnly">
      {children}
    </RequireRole>
  );
}

/** Root-only routes (the audit log): admins are refused too; the server refuses them the data as well. */
export function RequireRoot({ children }: { children: ReactNode }) {
  return (
    <RequireRole allowed={isRoot} refusal="audit.rootOnly">
      {children}
    </RequireRole>
  );
}

function RequireRole({
  allowed,
  refusal,
  children,
}: {
  allowed: (user: ReturnType<typeof useCurrentUser>) => boolean;
  refusal: string;
  children: ReactNode;
}) {
  const user = useCurrentUser();
  const { t } = useTranslation();
  if (!user) return <Navigate to="/login" replace />;
  if (!allowed(user)) {
    return (
      <Result
        status="403"
        title="403"
        subTitle={t(refusal)}
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
