import { Card, Col, Flex, Row, Statistic, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useSelf } from '../api/wallet';
import { OnlineTopUpCard } from './OnlineTopUpCard';
import { RedeemCard } from './RedeemCard';

/** My wallet: balance, redeem a code, online top-up. */
export function WalletPage() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const self = useSelf();
  const format = (quota: number | undefined) => (quota === undefined ? '—' : renderQuota(quota, status ?? null));
  return (
    <Flex vertical gap={16}>
      <Typography.Title level={4} style={{ margin: 0 }}>
        {t('wallet.title')}
      </Typography.Title>
      <Card loading={self.isLoading}>
        <Row gutter={24}>
          <Col xs={24} sm={8}>
            <Statistic title={t('wallet.balance')} value={format(self.data?.quota)} styles={{ content: { color: '#1677ff' } }} data-testid="wallet-balance" />
          </Col>
          <Col xs={24} sm={8}>
            <Statistic title={t('wallet.used')} value={format(self.data?.used_quota)} />
          </Col>
          <Col xs={24} sm={8}>
            <Statistic title={t('wallet.requests')} value={self.data?.request_count ?? '—'} />
          </Col>
        </Row>
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <RedeemCard />
        </Col>
        <Col xs={24} lg={12}>
          <OnlineTopUpCard />
        </Col>
      </Row>
    </Flex>
  );
}
