import { fundingPreferences, type FundingPreference } from '@modelgate/shared';
import { Alert, Button, Card, Col, Empty, Flex, Row, Select, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { showSuccess } from '../../../lib/feedback';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useOwnSubscriptions } from '../api/get-own-subscriptions';
import { usePlans } from '../api/get-plans';
import { useSubscribeByCard } from '../api/subscribe-plan';
import { useSetPreference } from '../api/update-preference';
import { CurrentSubscriptions } from './CurrentSubscriptions';
import { periodText } from './period-text';

/** Subscriptions: the caller's current ones, the funding preference, and the plans on sale. */
export function SubscriptionPage() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const subscribeByCard = useSubscribeByCard();
  const setPreference = useSetPreference();
  const own = useOwnSubscriptions();
  const plans = usePlans();
  const [params] = useSearchParams();
  const [buying, setBuying] = useState<number | null>(null);
  const canPayByCard = !!status?.enable_stripe_topup;

  const subscribe = async (planId: number) => {
    setBuying(planId);
    try {
      const { pay_link: link } = await subscribeByCard.mutateAsync(planId);
      window.open(link, '_self');
    } catch {
      // shown by the http client
      setBuying(null);
    }
  };
  const choose = async (preference: FundingPreference) => {
    try {
      await setPreference.mutateAsync(preference);
      showSuccess(t('subscriptions.preferenceSaved'));
    } catch {
      // shown by the http client
    }
  };

  return (
    <Flex vertical gap={16}>
      <Typography.Title level={4} style={{ margin: 0 }}>
        {t('subscriptions.title')}
      </Typography.Title>
      {params.get('pay') === 'success' && <Alert type="success" showIcon title={t('subscriptions.paidReturn')} />}
      {params.get('pay') === 'cancel' && <Alert type="info" showIcon title={t('subscriptions.cancelledReturn')} />}
      <CurrentSubscriptions subscriptions={own.data?.subscriptions ?? []} />
      <Card title={t('subscriptions.preference')}>
        <Space orientation="vertical">
          <Select
            aria-label={t('subscriptions.preference')}
            style={{ width: 280 }}
            value={own.data?.billing_preference}
            loading={own.isLoading}
            options={fundingPreferences.map((value) => ({ value, label: t(`subscriptions.preferences.${value}`) }))}
            onChange={(value) => void choose(value)}
          />
          <Typography.Text type="secondary">{t('subscriptions.preferenceHint')}</Typography.Text>
        </Space>
      </Card>
      <Card title={t('subscriptions.plans')} loading={plans.isLoading}>
        {(plans.data ?? []).length === 0 ? (
          <Empty description={t('subscriptions.noPlans')} />
        ) : (
          <Row gutter={[16, 16]}>
            {(plans.data ?? []).map((plan) => (
              <Col key={plan.id} xs={24} md={12} xl={8}>
                <Card type="inner" title={plan.name} data-testid={`plan-${plan.id}`}>
                  <Space orientation="vertical">
                    {plan.description && <Typography.Text>{plan.description}</Typography.Text>}
                    <Typography.Text
                      strong
                    >{`${plan.price.toFixed(2)} ${plan.currency.toUpperCase()} / ${periodText(t, plan.period_unit, plan.period_count)}`}</Typography.Text>
                    <Typography.Text>
                      {t('subscriptions.quotaPerPeriod', { quota: renderQuota(plan.quota, status ?? null) })}
                    </Typography.Text>
                    <Typography.Text type="secondary">
                      {[...plan.models, ...plan.groups.map((group) => t('subscriptions.groupName', { group }))].join(', ') ||
                        t('subscriptions.allModels')}
                    </Typography.Text>
                    {plan.price > 0 && canPayByCard ? (
                      <Button type="primary" loading={buying === plan.id} onClick={() => void subscribe(plan.id)}>
                        {t('subscriptions.subscribe')}
                      </Button>
                    ) : (
                      <Typography.Text type="secondary">
                        {t(plan.price > 0 ? 'subscriptions.cardOff' : 'subscriptions.grantOnly')}
                      </Typography.Text>
                    )}
                  </Space>
                </Card>
              </Col>
            ))}
          </Row>
        )}
      </Card>
    </Flex>
  );
}
