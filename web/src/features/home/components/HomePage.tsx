import { ApiOutlined, SafetyOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Col, Flex, Row, Spin, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { RichContent } from '../../../components/RichContent';
import { isHttpUrl } from '../../../lib/rich-text';
import { useStatus } from '../../../lib/status';
import { useHomePageContent } from '../api/get-home-page-content';
import { useNotice } from '../api/get-notice';
import { ContentFrame } from './ContentFrame';

const features = [
  { icon: <ApiOutlined />, titleKey: 'home.featureCompatTitle', textKey: 'home.featureCompatText' },
  { icon: <ThunderboltOutlined />, titleKey: 'home.featureRoutingTitle', textKey: 'home.featureRoutingText' },
  { icon: <SafetyOutlined />, titleKey: 'home.featureQuotaTitle', textKey: 'home.featureQuotaText' },
];

/** Home: the configured content (sanitised), else a default welcome. */
export function HomePage() {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const { data: status } = useStatus();
  const content = useHomePageContent();
  const notice = useNotice();
  if (content.isPending) return <Spin />;
  if (content.data) return <ContentFrame source={content.data} />;
  return (
    <Flex vertical gap={24} style={{ maxWidth: 1080, margin: '0 auto', width: '100%' }}>
      {notice.data && <Alert type="info" showIcon title={<RichContent source={notice.data} />} />}
      <div style={{ textAlign: 'center', padding: '48px 16px 24px' }}>
        <Typography.Title style={{ fontSize: 40, marginBottom: 12 }}>{status?.system_name || 'ModelGate'}</Typography.Title>
        <Typography.Paragraph style={{ fontSize: 18, color: token.colorTextSecondary }}>{t('home.tagline')}</Typography.Paragraph>
        <Flex gap={12} justify="center" wrap>
          <Link to="/token">
            <Button type="primary" size="large">
              {t('home.getStarted')}
            </Button>
          </Link>
          {status?.docs_link && isHttpUrl(status.docs_link) ? (
            <Button size="large" href={status.docs_link} target="_blank" rel="noopener noreferrer">
              {t('nav.docs')}
            </Button>
          ) : (
            <Link to="/pricing">
              <Button size="large">{t('nav.pricing')}</Button>
            </Link>
          )}
        </Flex>
      </div>
      <Row gutter={[16, 16]}>
        {features.map((feature) => (
          <Col xs={24} md={8} key={feature.titleKey}>
            <Card style={{ height: '100%' }}>
              <div style={{ fontSize: 28, color: token.colorPrimary, marginBottom: 8 }}>{feature.icon}</div>
              <Typography.Title level={5}>{t(feature.titleKey)}</Typography.Title>
              <Typography.Text type="secondary">{t(feature.textKey)}</Typography.Text>
            </Card>
          </Col>
        ))}
      </Row>
    </Flex>
  );
}
