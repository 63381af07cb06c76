import { Alert, Card, Result, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSetupState } from '../api/get-setup-state';
import { SetupForm } from './SetupForm';

/** First-run wizard. */
export function SetupPage() {
  const { t } = useTranslation();
  const { data, isPending, isError } = useSetupState();
  return (
    <div className="mg-auth-wrap">
      <Card className="mg-auth-card" style={{ maxWidth: 560 }}>
        <Typography.Title level={3} style={{ marginTop: 0 }}>
          {t('setup.title')}
        </Typography.Title>
        <Typography.Paragraph type="secondary">{t('setup.intro')}</Typography.Paragraph>
        {isPending && <Spin />}
        {isError && <Result status="error" title={t('setup.statusFailed')} />}
        {data && (
          <>
            {data.database_type === 'sqlite' && (
              <Alert
                type="warning"
                showIcon
                style={{ marginBottom: 16 }}
                title={t('setup.sqliteTitle')}
                description={t('setup.sqliteWarning')}
              />
            )}
            {data.root_init && <Alert type="info" showIcon style={{ marginBottom: 16 }} title={t('setup.adminExists')} />}
            <Alert
              type="info"
              showIcon
              style={{ marginBottom: 16 }}
              title={t('setup.serverAddressTitle')}
              description={t('setup.serverAddressNote')}
            />
            <SetupForm hasAdmin={data.root_init} />
          </>
        )}
      </Card>
    </div>
  );
}
