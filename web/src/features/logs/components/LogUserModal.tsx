import { Descriptions, Modal, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useLogUser } from '../api/get-log-user';

/** Admin click-through on a user name: username, balance, used quota, request count. */
export function LogUserModal({ userId, onClose }: { userId: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const { data: status = null } = useStatus();
  const { data: user, isLoading } = useLogUser(userId);
  return (
    <Modal open={userId !== null} title={t('logs.userInfo')} onCancel={onClose} footer={null} destroyOnHidden>
      {isLoading || !user ? (
        <Spin />
      ) : (
        <Descriptions
          column={1}
          bordered
          size="small"
          items={[
            { key: 'username', label: t('logs.username'), children: user.username },
            { key: 'quota', label: t('logs.balance'), children: renderQuota(user.quota, status) },
            { key: 'used', label: t('logs.usedQuota'), children: renderQuota(user.used_quota, status) },
            { key: 'count', label: t('logs.requestCount'), children: user.request_count },
          ]}
        />
      )}
    </Modal>
  );
}
