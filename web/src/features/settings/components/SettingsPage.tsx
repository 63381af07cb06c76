import { Card, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { PlaceholderPage } from '../../../components/PlaceholderPage';
import { SystemSettingsTab } from './SystemSettingsTab';

const tabs = ['operation', 'ratelimit', 'models', 'system', 'other'] as const;

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
          children: tab === 'system' ? <SystemSettingsTab /> : <PlaceholderPage titleKey={`settings.tab.${tab}`} />,
        }))}
      />
    </Card>
  );
}
