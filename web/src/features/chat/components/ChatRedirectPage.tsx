import { Card, Result, Spin } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useChatTarget } from './useChatTarget';

/** /chat2link — builds the chat link with the first enabled key and navigates there. */
export function ChatRedirectPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const index = Number.parseInt(params.get('id') ?? '0', 10);
  const target = useChatTarget(Number.isNaN(index) ? 0 : index);
  useEffect(() => {
    if (target.state === 'ready') window.location.assign(target.url);
  }, [target]);
  if (target.state === 'failed')
    return (
      <Card>
        <Result status="warning" title={target.message} />
      </Card>
    );
  return (
    <Card>
      <Result icon={<Spin size="large" />} title={t('chat.redirecting')} />
    </Card>
  );
}
