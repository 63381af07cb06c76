import { PlusOutlined } from '@ant-design/icons';
import type { Plan } from '@modelgate/shared';
import { Button, Card, Flex, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useDeletePlan } from '../api/delete-plan';
import { useAdminPlans } from '../api/get-admin-plans';
import { GrantPlanCard } from './GrantPlanCard';
import { PlanEditorDrawer } from './PlanEditorDrawer';
import { periodText } from './period-text';

/** The admins' plans editor: every plan, create, edit, delete (unsold ones), grant one to a user. */
export function PlansAdminPage() {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const deletePlan = useDeletePlan();
  const plans = useAdminPlans();
  const [editing, setEditing] = useState<{ plan: Plan | null } | null>(null);
  const remove = async (id: number) => {
    try {
      await deletePlan.mutateAsync(id);
      showSuccess(t('subscriptions.admin.deleted'));
    } catch {
      // shown by the http client
    }
  };
  return (
    <Flex vertical gap={16}>
      <Typography.Title level={4} style={{ margin: 0 }}>
        {t('subscriptions.admin.title')}
      </Typography.Title>
      <Card
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing({ plan: null })}>
            {t('subscriptions.admin.create')}
          </Button>
        }
      >
        <Table<Plan>
          rowKey="id"
          size="small"
          loading={plans.isLoading}
          dataSource={plans.data ?? []}
          pagination={false}
          columns={[
            { key: 'name', title: t('subscriptions.admin.name'), dataIndex: 'name' },
            {
              key: 'price',
              title: t('subscriptions.admin.price'),
              render: (_, plan) => `${plan.price.toFixed(2)} ${plan.currency.toUpperCase()}`,
            },
            {
              key: 'period',
              title: t('subscriptions.admin.period'),
              render: (_, plan) => periodText(t, plan.period_unit, plan.period_count),
            },
            { key: 'quota', title: t('subscriptions.admin.quota'), render: (_, plan) => renderQuota(plan.quota, status ?? null) },
            {
              key: 'covers',
              title: t('subscriptions.covers'),
              render: (_, plan) =>
                [...plan.models, ...plan.groups.map((group) => t('subscriptions.groupName', { group }))].join(', ') ||
                t('subscriptions.allModels'),
            },
            {
              key: 'enabled',
              title: t('subscriptions.admin.enabled'),
              render: (_, plan) => (
                <Tag color={plan.enabled ? 'green' : 'default'}>
                  {plan.enabled ? t('subscriptions.admin.on') : t('subscriptions.admin.off')}
                </Tag>
              ),
            },
            {
              key: 'actions',
              title: t('subscriptions.admin.actions'),
              render: (_, plan) => (
                <Space>
                  <Button size="small" onClick={() => setEditing({ plan })}>
                    {t('subscriptions.admin.editShort')}
                  </Button>
                  <Popconfirm title={t('subscriptions.admin.deleteConfirm')} onConfirm={() => void remove(plan.id)}>
                    <Button size="small" danger>
                      {t('subscriptions.admin.delete')}
                    </Button>
                  </Popconfirm>
                </Space>
              ),
            },
          ]}
        />
      </Card>
      <GrantPlanCard plans={plans.data ?? []} />
      <PlanEditorDrawer plan={editing?.plan ?? null} open={editing !== null} onClose={() => setEditing(null)} />
    </Flex>
  );
}
