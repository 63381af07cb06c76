import { Flex, Spin } from 'antd';
import { isValidJson } from '../hooks/save-options';
import { useOptions } from '../api/options';
import { OidcDiscovery } from './OidcDiscovery';
import { OptionsPanel } from './OptionsPanel';
import * as panels from './system-panels';

/** Payment needs the server address first; the group ratio must be JSON. */
function validatePayment(changes: Record<string, string>, options: Record<string, string>): string | null {
  if (!(options.ServerAddress ?? '').trim()) return 'settings.serverAddressFirst';
  if (changes.TopupGroupRatio !== undefined && !isValidJson(changes.TopupGroupRatio)) return 'settings.topupGroupRatioInvalid';
  return null;
}

/** The system settings panels of spec 01 §2 (presentation panels live in the other tab). */
export function SystemSettingsTab() {
  const { data: options } = useOptions();
  if (!options) return <Spin />;
  return (
    <Flex vertical gap={16}>
      <OptionsPanel titleKey="settings.generalPanel" fields={panels.generalFields} options={options} />
      <OptionsPanel titleKey="settings.paymentPanel" fields={panels.paymentFields} options={options} validate={validatePayment} />
      <OptionsPanel titleKey="settings.loginPanel" fields={panels.loginFields} options={options} />
      <OptionsPanel titleKey="settings.emailDomainPanel" fields={panels.emailDomainFields} options={options} />
      <OptionsPanel titleKey="settings.smtpPanel" fields={panels.smtpFields} options={options} />
      <OptionsPanel titleKey="settings.oidcPanel" fields={panels.oidcFields} options={options} extra={(form) => <OidcDiscovery form={form} />} />
      <OptionsPanel titleKey="settings.githubPanel" fields={panels.githubFields} options={options} />
      <OptionsPanel titleKey="settings.linuxdoPanel" fields={panels.linuxdoFields} options={options} />
      <OptionsPanel titleKey="settings.wechatPanel" fields={panels.wechatFields} options={options} />
      <OptionsPanel titleKey="settings.telegramPanel" fields={panels.telegramFields} options={options} />
      <OptionsPanel titleKey="settings.turnstilePanel" fields={panels.turnstileFields} options={options} />
    </Flex>
  );
}
