import { Card, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useAboutContent } from '../api/get-about';
import { ContentFrame } from './ContentFrame';

/** About: the configured content (sanitised), else a short default. */
export function AboutPage() {
  const { t } = useTranslation();
  const about = useAboutContent();
  if (about.isPending) return <Spin />;
  return (
    <Card>
      {about.data ? (
        <ContentFrame source={about.data} />
      ) : (
        <>
          <Typography.Title level={3}>{t('about.title')}</Typography.Title>
          <Typography.Paragraph>{t('about.default')}</Typography.Paragraph>
        </>
      )}
    </Card>
  );
}
