import { Alert } from 'antd';
import { useTranslation } from 'react-i18next';
import { isValidJson } from '../hooks/save-options';
import { OidcDiscovery } from './OidcDiscovery';
import { OptionsPanel } from './OptionsPanel';
import { panelSection, SettingsSections, type SettingsSection } from './SettingsSections';
import * as panels from './system-panels';

/** Shown above the general panel while ServerAddress is empty: what is refused until it is set. */
function ServerAddressMissing() {
  const { t } = useTranslation();
  return (
    <Alert
      type="warning"
      showIcon
      style={{ marginBottom: 16 }}
      title={t('settings.serverAddressMissingTitle')}
      description={t('settings.serverAddressMissing')}
    />
  );
}

const generalSection: SettingsSection = {
  key: 'general',
  labelKey: 'settings.generalPanel',
  render: (options) => (
    <OptionsPanel
      titleKey="settings.generalPanel"
      fields={panels.generalFields}
      options={options}
      description={(options.ServerAddress ?? '').trim() ? undefined : <ServerAddressMissing />}
    />
  ),
};

/** Payment needs the server address first; the group ratio must be JSON. */
function validatePayment(changes: Record<string, string>, options: Record<string, string>): string | null {
  if (!(options.ServerAddress ?? '').trim()) return 'settings.serverAddressFirst';
  if (changes.TopupGroupRatio !== undefined && !isValidJson(changes.TopupGroupRatio)) return 'settings.topupGroupRatioInvalid';
  return null;
}

export const systemSections: SettingsSection[] = [
  generalSection,
  panelSection('payment', 'settings.paymentPanel', panels.paymentFields, { validate: validatePayment }),
  panelSection('stripe', 'settings.stripePanel', panels.stripeFields, {
    validate: (_changes, options) => ((options.ServerAddress ?? '').trim() ? null : 'settings.serverAddressFirst'),
  }),
  panelSection('login', 'settings.loginPanel', panels.loginFields),
  panelSection('email', 'settings.emailDomainPanel', panels.emailDomainFields),
  panelSection('smtp', 'settings.smtpPanel', panels.smtpFields),
  panelSection('oidc', 'settings.oidcPanel', panels.oidcFields, { extra: (form) => <OidcDiscovery form={form} /> }),
  panelSection('github', 'settings.githubPanel', panels.githubFields),
  panelSection('linuxdo', 'settings.linuxdoPanel', panels.linuxdoFields),
  panelSection('wechat', 'settings.wechatPanel', panels.wechatFields),
  panelSection('telegram', 'settings.telegramPanel', panels.telegramFields),
  panelSection('turnstile', 'settings.turnstilePanel', panels.turnstileFields),
  panelSection('metrics', 'settings.metricsPanel', panels.metricsFields),
  panelSection('fetch', 'settings.ssrfPanel', panels.fetchFields),
  panelSection('response-cache', 'settings.responseCachePanel', panels.responseCacheFields),
];

/** The system settings panels (presentation panels live in the other tab), one section at a time. */
export function SystemSettingsTab() {
  return <SettingsSections sections={systemSections} />;
}
