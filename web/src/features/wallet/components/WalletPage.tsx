import { Alert, Card, Col, Flex, Row, Statistic, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useSelf } from '../../../lib/api/self';
import { CardTopUpCard } from './CardTopUpCard';
import { OnlineTopUpCard } from './OnlineTopUpCard';
import { RedeemCard } from './RedeemCard';
import { TopUpRecordsCard } from './TopUpRecordsCard';

/**
 * My wallet: balance, redeem a code, the online top-up methods that are configured (Epay's
 * Alipay / WeChat Pay, cards through Stripe; the Epay card says online top-up is off when neither
 * is), and the top-up records.
 */
export function WalletPage() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const self = useSelf();
  const [params] = useSearchParams();
  const returned = params.get('pay');
  const format = (quota: number | undefined) => (quota === undefined ? '—' : renderQuota(quota, status ?? null));
  const hasCard = !!status?.enable_stripe_topup;
  const showEpay = !!status?.enable_online_topup || !hasCard;
  return (
    <Flex vertical gap={16}>
      <Typography.Title level={4} style={{ margin: 0 }}>
        {t('wallet.title')}
      </Typography.Title>
      {returned === 'success' && <Alert type="success" showIcon title={t('wallet.paidReturn')} />}
      {returned === 'cancel' && <Alert type="info" showIcon title={t('wallet.cancelledReturn')} />}
      <Card loading={self.isLoading}>
        <Row gutter={24}>
          <Col xs={24} sm={8}>
            <Statistic
              title={t('wallet.balance')}
              value={format(self.data?.quota)}
              styles={{ content: { color: '#1677ff' } }}
              data-testid="wallet-balance"
            />
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
        {showEpay && (
          <Col xs={24} lg={12}>
            <OnlineTopUpCard />
          </Col>
        )}
        {hasCard && (
          <Col xs={24} lg={12}>
            <CardTopUpCard />
          </Col>
        )}
      </Row>
      <TopUpRecordsCard />
    </Flex>
  );
}
