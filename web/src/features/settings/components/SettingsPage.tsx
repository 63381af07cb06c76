import { Card, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { isRoot, useCurrentUser } from '../../../lib/user-store';
import type { ReactNode } from 'react';
import { ModelsTab } from './ModelsTab';
import { OperationTab } from './OperationTab';
import { RateLimitTab } from './RateLimitTab';
import { OtherSettingsTab } from './OtherSettingsTab';
import { SystemSettingsTab } from './SystemSettingsTab';

const allTabs = ['operation', 'ratelimit', 'models', 'system', 'other'] as const;
/** The system tab holds the root-only options (server, payment, login, mail, OAuth, bot check). */
const rootOnlyTabs: ReadonlySet<string> = new Set(['system']);

const tabContent: Record<(typeof allTabs)[number], () => ReactNode> = {
  operation: () => <OperationTab />,
  ratelimit: () => <RateLimitTab />,
  models: () => <ModelsTab />,
  system: () => <SystemSettingsTab />,
  other: () => <OtherSettingsTab />,
};

/** Settings page; the tab comes from ?tab= (default operation). Admins see the tabs they may manage. */
export function SettingsPage() {
  const { t } = useTranslation();
  const isRootUser = isRoot(useCurrentUser());
  const tabs = allTabs.filter((tab) => isRootUser || !rootOnlyTabs.has(tab));
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
