import { Card, Col, Row, Spin, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useSelf } from '../../../lib/api/self';
import { AvailableModelsCard } from './AvailableModelsCard';
import { BalanceCard } from './BalanceCard';
import { BindingsPanel } from './BindingsPanel';
import { InviteCard } from './InviteCard';
import { NotificationTab } from './NotificationTab';
import { PricingTab } from './PricingTab';
import { SecurityPanel } from './SecurityPanel';
import { TwoFactorPanel } from './TwoFactorPanel';

/** Personal settings: balance, invite, bindings, security, two-factor, notification and pricing tabs (?tab= picks one). */
export function PersonalPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const self = useSelf();
  if (!self.data) return <Spin />;
  const user = self.data;
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} lg={10}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <BalanceCard user={user} />
          </Col>
          <Col span={24}>
            <InviteCard user={user} />
          </Col>
          <Col span={24}>
            <AvailableModelsCard />
          </Col>
        </Row>
      </Col>
      <Col xs={24} lg={14}>
        <Card>
          <Tabs
            defaultActiveKey={params.get('tab') ?? undefined}
            items={[
              { key: 'bindings', label: t('personal.tabBindings'), children: <BindingsPanel user={user} /> },
              { key: 'security', label: t('personal.tabSecurity'), children: <SecurityPanel user={user} /> },
              { key: 'two-factor', label: t('twoFactor.tab'), children: <TwoFactorPanel /> },
              { key: 'notification', label: t('personal.tabNotification'), children: <NotificationTab user={user} /> },
              // Making unpriced models free is an admin's own setting; the server refuses it to users.
              ...(user.role >= 10 ? [{ key: 'pricing', label: t('personal.tabPricing'), children: <PricingTab user={user} /> }] : []),
            ]}
          />
        </Card>
      </Col>
    </Row>
  );
}
