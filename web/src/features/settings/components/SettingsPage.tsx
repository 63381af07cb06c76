import { Card, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { ReactNode } from 'react';
import { ModelsTab } from '../../settings-ops/components/ModelsTab';
import { OperationTab } from '../../settings-ops/components/OperationTab';
import { RateLimitTab } from '../../settings-ops/components/RateLimitTab';
import { OtherSettingsTab } from './OtherSettingsTab';
import { SystemSettingsTab } from './SystemSettingsTab';

const tabs = ['operation', 'ratelimit', 'models', 'system', 'other'] as const;

const tabContent: Record<(typeof tabs)[number], () => ReactNode> = {
  operation: () => <OperationTab />,
  ratelimit: () => <RateLimitTab />,
  models: () => <ModelsTab />,
  system: () => <SystemSettingsTab />,
  other: () => <OtherSettingsTab />,
};

/** Settings page; the tab comes from ?tab= (default operation). */
export function SettingsPage() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const active = tabs.find((tab) => tab === requested) ?? 'operation';
  return (
    <Card>
      <Tabs
        activeKey={active}
        onChange={(key) => setParams({ tab: key })}
        destroyOnHidden
        items={tabs.map((tab) => ({
          key: tab,
          label: t(`settings.tab.${tab}`),
          children: tabContent[tab](),
        }))}
      />
    </Card>
  );
}
