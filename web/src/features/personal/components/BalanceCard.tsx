import { Card, Col, Row, Statistic, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import type { SelfUser } from '@modelgate/shared';

export function BalanceCard({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  return (
    <Card
      title={
        <span>
          {user.display_name || user.username} <Tag color="blue">{user.group || 'default'}</Tag>
        </span>
      }
      extra={<Typography.Text type="secondary">ID {user.id}</Typography.Text>}
    >
      <Row gutter={16}>
        <Col span={8}>
          <Statistic title={t('personal.balance')} value={renderQuota(user.quota, status ?? null)} />
        </Col>
        <Col span={8}>
          <Statistic title={t('personal.used')} value={renderQuota(user.used_quota, status ?? null)} />
        </Col>
        <Col span={8}>
          <Statistic title={t('personal.requests')} value={user.request_count} />
        </Col>
      </Row>
    </Card>
  );
}
