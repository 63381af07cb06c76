import { Card, Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

/** A screen owned by a later issue: a clear heading naming it, and nothing pretending to work. */
export function PlaceholderPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  return (
    <Card>
      <Typography.Title level={3}>{t(titleKey)}</Typography.Title>
      <Empty description={t('placeholder.later', { name: t(titleKey) })} />
    </Card>
  );
}
