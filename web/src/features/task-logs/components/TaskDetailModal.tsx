import { Button, Flex, Image, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { copyText } from '../../../lib/clipboard';

/** The 800 × 400 detail dialog of both task logs: the text (prompt, JSON, reason), copyable, and an image. */
export function TaskDetailModal({
  title,
  text,
  imageUrl,
  onClose,
}: {
  title: string;
  text: string | null;
  imageUrl?: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal open={text !== null} title={title} width={800} onCancel={onClose} footer={null} destroyOnHidden>
      <Flex vertical gap={8} style={{ height: 400, overflow: 'auto' }}>
        {imageUrl && <Image src={imageUrl} alt={title} style={{ maxHeight: 240, objectFit: 'contain' }} />}
        <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', margin: 0 }}>{text}</Typography.Paragraph>
      </Flex>
      <Flex justify="end" style={{ marginTop: 8 }}>
        <Button onClick={() => void copyText(text ?? '', t('taskLogs.copied'))}>{t('taskLogs.copy')}</Button>
      </Flex>
    </Modal>
  );
}
