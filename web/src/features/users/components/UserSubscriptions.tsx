import { Button, Descriptions, Empty, InputNumber, Popconfirm, Select, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { formatDateTime, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useGrantablePlans, useGrantUserPlan, useRevokeUserSubscription, useUserSubscriptions } from '../api/user-subscriptions';

/**
 * The user's subscriptions in the user editor (admins): plan, state, period end, what is left of
 * the allowance; end one now, or grant a plan for some periods. The server checks the roles.
 */
export function UserSubscriptions({ userId }: { userId: number }) {
  const { t } = useTranslation();
  const { data: status = null } = useStatus();
  const grantUserPlan = useGrantUserPlan(userId);
  const revokeUserSubscription = useRevokeUserSubscription(userId);
  const subscriptions = useUserSubscriptions(userId);
  const plans = useGrantablePlans();
  const [planId, setPlanId] = useState<number | null>(null);
  const [periods, setPeriods] = useState(1);
  const [isBusy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>, message: string) => {
    setBusy(true);
    try {
      await action();
      showSuccess(message);
    } catch {
      // shown by the http client
    } finally {
      setBusy(false);
    }
  };
  const rows = subscriptions.data?.subscriptions ?? [];
  return (
    <div data-testid="user-subscriptions" style={{ marginTop: 16 }}>
      <Typography.Title level={5}>{t('subscriptions.admin.userTitle')}</Typography.Title>
      {rows.length === 0 && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('subscriptions.none')} />}
      {rows.map((sub) => {
        const state = sub.status !== 'active' ? 'expired' : sub.renews ? 'renewing' : sub.cancelled_at ? 'cancelled' : 'fixed';
        return (
          <Descriptions
            key={sub.id}
            data-testid={`user-subscription-${sub.id}`}
            size="small"
            column={1}
            bordered
            style={{ marginBottom: 8 }}
            title={
              <Space>
                {sub.plan_name}
                <Tag color={state === 'renewing' ? 'green' : state === 'expired' ? 'default' : 'orange'}>
                  {t(`subscriptions.state.${state}`)}
                </Tag>
              </Space>
            }
            extra={
              sub.status === 'active' && (
                <Popconfirm
                  title={t('subscriptions.admin.revokeConfirm')}
                  onConfirm={() => void run(() => revokeUserSubscription.mutateAsync(sub.id), t('subscriptions.admin.revoked'))}
                >
                  <Button size="small" danger loading={isBusy}>
                    {t('subscriptions.admin.revoke')}
                  </Button>
                </Popconfirm>
              )
            }
          >
            {sub.status === 'active' && (
              <Descriptions.Item label={t('subscriptions.admin.left')}>
                {t('subscriptions.remaining', {
                  left: renderQuota(sub.remaining_quota, status),
                  total: renderQuota(sub.period_quota, status),
                })}
              </Descriptions.Item>
            )}
            <Descriptions.Item label={t('subscriptions.admin.periodEnd')}>{formatDateTime(sub.period_end)}</Descriptions.Item>
            {!sub.renews && sub.ends_at > 0 && (
              <Descriptions.Item label={t('subscriptions.endsAt')}>{formatDateTime(sub.ends_at)}</Descriptions.Item>
            )}
          </Descriptions>
        );
      })}
      <Space wrap style={{ marginTop: 8 }}>
        <Select
          aria-label={t('subscriptions.admin.plan')}
          placeholder={t('subscriptions.admin.plan')}
          style={{ width: 180 }}
          value={planId ?? undefined}
          onChange={setPlanId}
          options={(plans.data ?? []).map((plan) => ({ value: plan.id, label: plan.name }))}
        />
        <InputNumber
          aria-label={t('subscriptions.admin.periods')}
          min={1}
          max={120}
          precision={0}
          value={periods}
          onChange={(value) => setPeriods(value ?? 1)}
        />
        <Button
          disabled={planId === null}
          loading={isBusy}
          onClick={() =>
            void run(() => grantUserPlan.mutateAsync({ user_id: userId, plan_id: planId!, periods }), t('subscriptions.admin.granted'))
          }
        >
          {t('subscriptions.admin.grant')}
        </Button>
      </Space>
    </div>
  );
}
