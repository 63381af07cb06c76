import { SafetyCertificateOutlined } from '@ant-design/icons';
import { Button, List, Space, Tag } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import type { TwoFactorStatus } from '@modelgate/shared';
import { useDisableTotp } from '../api/disable-totp';
import { useRegenerateRecoveryCodes } from '../api/regenerate-recovery-codes';
import { CodePromptModal } from './CodePromptModal';
import { RecoveryCodesModal } from './RecoveryCodesModal';
import { TotpEnrolModal } from './TotpEnrolModal';

/** The authenticator-app (TOTP) row: enable, new recovery codes, disable. */
export function TotpItem({ status }: { status: TwoFactorStatus }) {
  const { t } = useTranslation();
  const disable = useDisableTotp();
  const regenerate = useRegenerateRecoveryCodes();
  const [modal, setModal] = useState<'enrol' | 'disable' | 'regenerate' | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const close = () => setModal(null);

  const actions = status.enabled
    ? [
        <Button key="codes" onClick={() => setModal('regenerate')}>
          {t('twoFactor.regenerate')}
        </Button>,
        <Button key="disable" danger onClick={() => setModal('disable')}>
          {t('twoFactor.disable')}
        </Button>,
      ]
    : [
        <Button key="enable" type="primary" onClick={() => setModal('enrol')}>
          {t('twoFactor.enable')}
        </Button>,
      ];
  return (
    <>
      <List.Item actions={actions}>
        <List.Item.Meta
          avatar={<SafetyCertificateOutlined />}
          title={
            <Space>
              {t('twoFactor.totpTitle')}
              <Tag color={status.enabled ? 'green' : 'default'}>{status.enabled ? t('twoFactor.on') : t('twoFactor.off')}</Tag>
            </Space>
          }
          description={
            status.enabled ? t('twoFactor.recoveryCodesLeft', { count: status.backup_codes_remaining }) : t('twoFactor.totpHint')
          }
        />
      </List.Item>
      <TotpEnrolModal
        open={modal === 'enrol'}
        onClose={close}
        onEnrolled={(fresh) => {
          close();
          setCodes(fresh);
          showSuccess(t('twoFactor.enabled'));
        }}
      />
      <CodePromptModal
        open={modal === 'disable'}
        title={t('twoFactor.disableTitle')}
        hint={t('twoFactor.disableHint')}
        allowRecovery
        onClose={close}
        onSubmit={async (code) => {
          await disable.mutateAsync(code);
          showSuccess(t('twoFactor.disabled'));
        }}
      />
      <CodePromptModal
        open={modal === 'regenerate'}
        title={t('twoFactor.regenerate')}
        hint={t('twoFactor.regenerateHint')}
        allowRecovery={false}
        onClose={close}
        onSubmit={async (code) => {
          setCodes((await regenerate.mutateAsync(code)).backup_codes);
        }}
      />
      <RecoveryCodesModal codes={codes} onClose={() => setCodes(null)} />
    </>
  );
}
