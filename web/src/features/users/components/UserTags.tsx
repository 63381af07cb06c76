import { Role, UserStatus } from '@modelgate/shared';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';

export function RoleTag({ role }: { role: number }) {
  const { t } = useTranslation();
  if (role === Role.user) return <Tag>{t('users.roleUser')}</Tag>;
  if (role === Role.admin) return <Tag color="gold">{t('users.roleAdmin')}</Tag>;
  if (role === Role.root) return <Tag color="orange">{t('users.roleRoot')}</Tag>;
  return <Tag color="red">{t('users.roleUnknown')}</Tag>;
}

export function StatusTag({ status, isCancelled }: { status: number; isCancelled: boolean }) {
  const { t } = useTranslation();
  if (isCancelled) return <Tag color="default">{t('users.statusCancelled')}</Tag>;
  if (status === UserStatus.enabled) return <Tag color="green">{t('users.statusEnabled')}</Tag>;
  if (status === UserStatus.disabled) return <Tag color="red">{t('users.statusDisabled')}</Tag>;
  return <Tag color="default">{t('users.statusUnknown')}</Tag>;
}
