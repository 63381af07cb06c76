import { KeyOutlined } from '@ant-design/icons';
import { browserSupportsWebAuthn } from '@simplewebauthn/browser';
import { passkeyNameMaxLength, type Passkey } from '@modelgate/shared';
import { Button, Input, List, Modal, Popconfirm, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../lib/http';
import { showError, showSuccess } from '../../../lib/feedback';
import { formatDateTime } from '../../../lib/format';
import { usePasskeys } from '../api/get-passkeys';
import { useRegisterPasskey } from '../api/register-passkey';
import { useRemovePasskey } from '../api/remove-passkey';
import { useRenamePasskey } from '../api/rename-passkey';

/** A name for a new passkey, or a new name for one (`passkey` set). */
function NameModal({
  passkey,
  isAdding,
  onDone,
  onClose,
}: {
  passkey: Passkey | null;
  isAdding: boolean;
  onDone: (name: string) => Promise<void>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState(passkey?.name ?? '');
  const [loading, setLoading] = useState(false);
  const submit = async () => {
    setLoading(true);
    try {
      await onDone(name.trim());
      onClose();
    } catch (error) {
      if (!(error instanceof ApiError && error.shown)) {
        const cancelled = error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
        showError(cancelled ? t('twoFactor.passkeyCancelled') : t('twoFactor.passkeyFailed'));
      }
    } finally {
      setLoading(false);
    }
  };
  return (
    <Modal
      open
      title={isAdding ? t('twoFactor.addPasskey') : t('twoFactor.renamePasskey')}
      onCancel={onClose}
      onOk={() => void submit()}
      confirmLoading={loading}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
    >
      <Input
        autoFocus
        value={name}
        maxLength={passkeyNameMaxLength}
        onChange={(event) => setName(event.target.value)}
        onPressEnter={() => void submit()}
        placeholder={t('twoFactor.passkeyNamePlaceholder')}
        aria-label={t('twoFactor.passkeyName')}
      />
    </Modal>
  );
}

/** Passkeys of the signed-in user: add several, rename or remove each. */
export function PasskeysItem() {
  const { t } = useTranslation();
  const passkeys = usePasskeys(true);
  const register = useRegisterPasskey();
  const rename = useRenamePasskey();
  const removal = useRemovePasskey();
  const [editing, setEditing] = useState<Passkey | 'new' | null>(null);
  const isSupported = browserSupportsWebAuthn();

  const remove = async (id: number) => {
    try {
      await removal.mutateAsync(id);
      showSuccess(t('twoFactor.passkeyRemoved'));
    } catch {
      // shown by the http client
    }
  };
  return (
    <>
      <List.Item
        actions={[
          <Button key="add" disabled={!isSupported} onClick={() => setEditing('new')}>
            {t('twoFactor.addPasskey')}
          </Button>,
        ]}
      >
        <List.Item.Meta
          avatar={<KeyOutlined />}
          title={t('twoFactor.passkeysTitle')}
          description={isSupported ? t('twoFactor.passkeysHint') : t('twoFactor.passkeysUnsupported')}
        />
      </List.Item>
      {(passkeys.data ?? []).map((passkey) => (
        <List.Item
          key={passkey.id}
          style={{ paddingLeft: 32 }}
          actions={[
            <Button key="rename" type="link" onClick={() => setEditing(passkey)}>
              {t('twoFactor.rename')}
            </Button>,
            <Popconfirm
              key="remove"
              title={t('twoFactor.removePasskeyConfirm')}
              onConfirm={() => void remove(passkey.id)}
              okText={t('common.confirm')}
              cancelText={t('common.cancel')}
            >
              <Button type="link" danger>
                {t('twoFactor.remove')}
              </Button>
            </Popconfirm>,
          ]}
        >
          <Space orientation="vertical" size={0}>
            <Typography.Text strong>{passkey.name}</Typography.Text>
            <Typography.Text type="secondary">
              {t('twoFactor.passkeyAdded', { time: formatDateTime(passkey.created_at) })}
              {' · '}
              {passkey.last_used_at
                ? t('twoFactor.passkeyUsed', { time: formatDateTime(passkey.last_used_at) })
                : t('twoFactor.passkeyNeverUsed')}
            </Typography.Text>
          </Space>
        </List.Item>
      ))}
      {editing !== null && (
        <NameModal
          passkey={editing === 'new' ? null : editing}
          isAdding={editing === 'new'}
          onClose={() => setEditing(null)}
          onDone={async (name) => {
            if (editing === 'new') {
              await register.mutateAsync(name);
              showSuccess(t('twoFactor.passkeyAddedMessage'));
            } else {
              await rename.mutateAsync({ id: editing.id, name });
              showSuccess(t('twoFactor.passkeyRenamed'));
            }
          }}
        />
      )}
    </>
  );
}
