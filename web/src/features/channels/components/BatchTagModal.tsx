import { Input, Modal } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Sets one tag on the selected channels. */
export function BatchTagModal({
  open,
  count,
  onSubmit,
  onClose,
}: {
  open: boolean;
  count: number;
  onSubmit: (tag: string) => Promise<boolean>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [tag, setTag] = useState('');
  const [isSaving, setSaving] = useState(false);
  const submit = async () => {
    setSaving(true);
    const isDone = await onSubmit(tag);
    setSaving(false);
    if (isDone) {
      setTag('');
      onClose();
    }
  };
  return (
    <Modal
      title={t('channels.batchTagTitle')}
      open={open}
      onCancel={onClose}
      onOk={() => void submit()}
      okText={t('common.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={isSaving}
    >
      <p>{t('channels.batchTagCount', { count })}</p>
      <Input
        aria-label={t('channels.field.tag')}
        placeholder={t('channels.batchTagPlaceholder')}
        value={tag}
        onChange={(event) => setTag(event.target.value)}
      />
    </Modal>
  );
}
