import { Button, Input, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';

/** The codes just created, one per line, with a copy-all button. */
export function CreatedCodesModal({ keys, onClose }: { keys: string[]; onClose: () => void }) {
  const { t } = useTranslation();
  const text = keys.join('\n');
  return (
    <Modal
      title={t('redemptions.createdTitle', { count: keys.length })}
      open={keys.length > 0}
      onCancel={onClose}
      footer={[
        <Button key="close" onClick={onClose}>
          {t('redemptions.close')}
        </Button>,
        <Button key="copy" type="primary" onClick={() => void copyText(text)}>
          {t('redemptions.copyAll')}
        </Button>,
      ]}
    >
      <Input.TextArea aria-label={t('redemptions.createdCodes')} value={text} readOnly autoSize={{ minRows: 2, maxRows: 12 }} />
    </Modal>
  );
}
