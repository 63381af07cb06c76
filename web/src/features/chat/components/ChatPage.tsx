import { Card, Result, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useChatTarget } from './useChatTarget';

/** /chat/:id — the configured chat link in a frame, with key and address substituted. */
export function ChatPage() {
  const { t } = useTranslation();
  const { id } = useParams();
  const index = Number.parseInt(id ?? '0', 10);
  const target = useChatTarget(Number.isNaN(index) ? 0 : index);
  if (target.state === 'loading') return <Spin size="large" style={{ display: 'block', margin: '80px auto' }} />;
  if (target.state === 'failed') return <Card><Result status="warning" title={target.message} /></Card>;
  return <iframe src={target.url} title={t('chat.frameTitle')} style={{ width: '100%', height: 'calc(100vh - 140px)', border: 'none' }} />;
}
