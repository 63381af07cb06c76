import { Button, Card, Descriptions } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback, showError, showSuccess } from '../../../lib/feedback';
import { formatDateTime } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { RichContent } from '../../../components/RichContent';

export const releasesUrl = 'https://api.github.com/repos/modelgate/modelgate/releases/latest';

/** Current version and start time; checks the public releases API for a newer one. */
export function VersionCheckPanel() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const [loading, setLoading] = useState(false);
  const check = async () => {
    setLoading(true);
    try {
      const response = await fetch(releasesUrl);
      if (!response.ok) throw new Error(String(response.status));
      const release = (await response.json()) as { tag_name?: string; body?: string; html_url?: string };
      if (!release.tag_name || release.tag_name.replace(/^v/, '') === status?.version) {
        showSuccess(t('settings.upToDate'));
        return;
      }
      feedback.modal.info({
        title: t('settings.newVersion', { version: release.tag_name }),
        content: <RichContent source={release.body ?? ''} />,
        width: 640,
      });
    } catch {
      showError(t('settings.checkUpdateFailed'));
    } finally {
      setLoading(false);
    }
  };
  return (
    <Card title={t('settings.versionPanel')} size="small">
      <Descriptions column={1} size="small" style={{ marginBottom: 12 }}>
        <Descriptions.Item label={t('settings.currentVersion')}>{status?.version ?? '-'}</Descriptions.Item>
        <Descriptions.Item label={t('settings.startTime')}>{formatDateTime(status?.start_time) || '-'}</Descriptions.Item>
      </Descriptions>
      <Button loading={loading} onClick={() => void check()}>
        {t('settings.checkUpdate')}
      </Button>
    </Card>
  );
}
