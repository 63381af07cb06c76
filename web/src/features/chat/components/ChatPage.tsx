import { Button, Card, Result, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { useChatTarget } from './useChatTarget';

/**
 * /chat/:id — the configured chat link with key and address substituted: an http(s) page in a frame;
 * an app's own link (cherrystudio://, opencat://) cannot be framed, so the browser is sent to it.
 */
export function ChatPage() {
  const { t } = useTranslation();
  const { id } = useParams();
  const index = Number.parseInt(id ?? '0', 10);
  const target = useChatTarget(Number.isNaN(index) ? 0 : index);
  const appUrl = target.state === 'ready' && target.kind === 'app' ? target.url : null;
  useEffect(() => {
    if (appUrl) window.location.assign(appUrl);
  }, [appUrl]);
  if (target.state === 'loading') return <Spin size="large" style={{ display: 'block', margin: '80px auto' }} />;
  if (target.state === 'failed')
    return (
      <Card>
        <Result status="warning" title={target.message} />
      </Card>
    );
  if (appUrl) {
    return (
      <Card>
        <Result
          status="info"
          title={t('chat.openingApp')}
          subTitle={t('chat.openingAppHint')}
          extra={
            <Button type="primary" onClick={() => window.location.assign(appUrl)}>
              {t('chat.openApp')}
            </Button>
          }
        />
      </Card>
    );
  }
  return (
    <iframe
      src={target.state === 'ready' ? target.url : undefined}
      title={t('chat.frameTitle')}
      style={{ width: '100%', height: 'calc(100vh - 140px)', border: 'none' }}
    />
  );
}
