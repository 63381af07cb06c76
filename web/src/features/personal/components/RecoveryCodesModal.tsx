import { Alert, Button, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';

/** The recovery codes, shown this once (the server keeps only their hashes). */
export function RecoveryCodesModal({ codes, onClose }: { codes: string[] | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      open={codes !== null}
      title={t('twoFactor.recoveryCodesTitle')}
      closable={false}
      maskClosable={false}
      footer={[
        <Button key="copy" onClick={() => void copyText((codes ?? []).join('\n'), t('twoFactor.recoveryCodesCopied'))}>
          {t('common.copy')}
        </Button>,
        <Button key="done" type="primary" onClick={onClose}>
          {t('twoFactor.recoveryCodesSaved')}
        </Button>,
      ]}
    >
      <Alert type="warning" showIcon title={t('twoFactor.recoveryCodesWarning')} style={{ marginBottom: 16 }} />
      <div data-testid="recovery-codes" style={{ display: 'grid', gridTemplateColumns: '1fr 1fr', gap: 8 }}>
        {(codes ?? []).map((code) => (
          <Typography.Text key={code} code style={{ fontSize: 15 }}>
            {code}
          </Typography.Text>
        ))}
      </div>
    </Modal>
  );
}
