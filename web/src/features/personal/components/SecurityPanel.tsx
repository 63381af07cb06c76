import { DeleteOutlined, KeyOutlined, LockOutlined } from '@ant-design/icons';
import { Button, List } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';
import type { SelfUser } from '@modelgate/shared';
import { useGenerateAccessToken } from '../api/generate-access-token';
import { DeleteAccountModal } from './DeleteAccountModal';
import { PasswordModal } from './PasswordModal';

/** Password change, system access token and account deletion. */
export function SecurityPanel({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const [modal, setModal] = useState<'password' | 'delete' | null>(null);
  const [isGenerating, setGenerating] = useState(false);
  const generateAccessToken = useGenerateAccessToken();
  const generate = async () => {
    setGenerating(true);
    try {
      const token = await generateAccessToken.mutateAsync();
      await copyText(token, t('personal.tokenReset'));
    } catch {
      // shown by the http client
    } finally {
      setGenerating(false);
    }
  };
  return (
    <>
      <List>
        <List.Item
          actions={[
            <Button key="go" onClick={() => setModal('password')}>
              {t('personal.changePassword')}
            </Button>,
          ]}
        >
          <List.Item.Meta avatar={<LockOutlined />} title={t('personal.changePassword')} description={t('personal.changePasswordHint')} />
        </List.Item>
        <List.Item
          actions={[
            <Button key="go" loading={isGenerating} onClick={() => void generate()}>
              {t('personal.generateToken')}
            </Button>,
          ]}
        >
          <List.Item.Meta avatar={<KeyOutlined />} title={t('personal.accessToken')} description={t('personal.accessTokenHint')} />
        </List.Item>
        <List.Item
          actions={[
            <Button key="go" danger onClick={() => setModal('delete')}>
              {t('personal.deleteAccount')}
            </Button>,
          ]}
        >
          <List.Item.Meta avatar={<DeleteOutlined />} title={t('personal.deleteAccount')} description={t('personal.deleteAccountHint')} />
        </List.Item>
      </List>
      <PasswordModal open={modal === 'password'} onClose={() => setModal(null)} />
      <DeleteAccountModal open={modal === 'delete'} username={user.username} onClose={() => setModal(null)} />
    </>
  );
}
