import type { UserSubscription } from '@modelgate/shared';
import { Button, Card, Descriptions, Empty, Popconfirm, Progress, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { formatDateTime, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useCancelSubscription } from '../api/cancel-subscription';

/** The caller's subscriptions: what is left of this period, when it renews or ends, cancel. */
export function CurrentSubscriptions({ subscriptions }: { subscriptions: UserSubscription[] }) {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const cancelSubscription = useCancelSubscription();
  const cancel = async (id: number) => {
    try {
      await cancelSubscription.mutateAsync(id);
      showSuccess(t('subscriptions.cancelled'));
    } catch {
      // shown by the http client
    }
  };
  if (subscriptions.length === 0)
    return (
      <Card title={t('subscriptions.current')}>
        <Empty description={t('subscriptions.none')} />
      </Card>
    );
  return (
    <Card title={t('subscriptions.current')}>
      <Space orientation="vertical" style={{ width: '100%' }} size="large">
        {subscriptions.map((sub) => {
          const percent = sub.period_quota > 0 ? Math.round((sub.remaining_quota / sub.period_quota) * 100) : 0;
          const state = sub.status !== 'active' ? 'expired' : sub.renews ? 'renewing' : sub.cancelled_at ? 'cancelled' : 'fixed';
          return (
            <div key={sub.id} data-testid={`subscription-${sub.id}`}>
              <Space wrap style={{ marginBottom: 8 }}>
                <Typography.Text strong>{sub.plan_name}</Typography.Text>
                <Tag color={state === 'renewing' ? 'green' : state === 'expired' ? 'default' : 'orange'}>
                  {t(`subscriptions.state.${state}`)}
                </Tag>
                <Tag>{t(`subscriptions.source.${sub.source}`)}</Tag>
              </Space>
              {sub.status === 'active' && (
                <Progress
                  percent={percent}
                  format={() =>
                    t('subscriptions.remaining', {
                      left: renderQuota(sub.remaining_quota, status ?? null),
                      total: renderQuota(sub.period_quota, status ?? null),
                    })
                  }
                />
              )}
              <Descriptions size="small" column={{ xs: 1, sm: 2 }}>
                <Descriptions.Item
                  label={t('subscriptions.period')}
                >{`${formatDateTime(sub.period_start)} – ${formatDateTime(sub.period_end)}`}</Descriptions.Item>
                <Descriptions.Item label={sub.renews ? t('subscriptions.renewsAt') : t('subscriptions.endsAt')}>
                  {formatDateTime(sub.renews ? sub.period_end : sub.ends_at)}
                </Descriptions.Item>
                <Descriptions.Item label={t('subscriptions.covers')}>
                  {[...sub.models, ...sub.groups.map((group) => t('subscriptions.groupName', { group }))].join(', ') ||
                    t('subscriptions.allModels')}
                </Descriptions.Item>
              </Descriptions>
              {sub.renews && sub.source === 'stripe' && (
                <Popconfirm title={t('subscriptions.cancelConfirm')} onConfirm={() => void cancel(sub.id)}>
                  <Button danger size="small">
                    {t('subscriptions.cancel')}
                  </Button>
                </Popconfirm>
              )}
            </div>
          );
        })}
      </Space>
    </Card>
  );
}
