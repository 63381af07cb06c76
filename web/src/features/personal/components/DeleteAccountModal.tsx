import { Alert, Input, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { showError, showSuccess } from '../../../lib/feedback';
import { userStore } from '../../../lib/user-store';
import { useDeleteSelf } from '../api/delete-self';

/** Account deletion: the typed name must equal the own username. */
export function DeleteAccountModal({ open, username, onClose }: { open: boolean; username: string; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [typed, setTyped] = useState('');
  const [loading, setLoading] = useState(false);
  const deleteSelf = useDeleteSelf();
  const submit = async () => {
    if (typed !== username) {
      showError(t('personal.deleteConfirmMismatch'));
      return;
    }
    setLoading(true);
    try {
      await deleteSelf.mutateAsync();
      showSuccess(t('personal.accountDeleted'));
      userStore.clear();
      navigate('/');
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };
  return (
    <Modal
      open={open}
      title={t('personal.deleteAccount')}
      onCancel={onClose}
      onOk={() => void submit()}
      okButtonProps={{ danger: true }}
      confirmLoading={loading}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      destroyOnHidden
    >
      <Alert type="warning" showIcon title={t('personal.deleteWarning')} style={{ marginBottom: 16 }} />
      <Input
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
        placeholder={t('personal.deleteTypeName', { name: username })}
        aria-label={t('personal.deleteTypeName', { name: username })}
      />
    </Modal>
  );
}
