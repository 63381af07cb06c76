import { isValidJson } from '../hooks/save-options';
import { OidcDiscovery } from './OidcDiscovery';
import type { OptionField } from './option-fields';
import { OptionsPanel, type OptionsPanelProps } from './OptionsPanel';
import { SettingsSections, type SettingsSection } from './SettingsSections';
import * as panels from './system-panels';

/** Payment needs the server address first; the group ratio must be JSON. */
function validatePayment(changes: Record<string, string>, options: Record<string, string>): string | null {
  if (!(options.ServerAddress ?? '').trim()) return 'settings.serverAddressFirst';
  if (changes.TopupGroupRatio !== undefined && !isValidJson(changes.TopupGroupRatio)) return 'settings.topupGroupRatioInvalid';
  return null;
}

const section = (key: string, titleKey: string, fields: OptionField[], more: Partial<OptionsPanelProps> = {}): SettingsSection => ({
  key,
  labelKey: titleKey,
  render: (options) => <OptionsPanel titleKey={titleKey} fields={fields} options={options} {...more} />,
});

export const systemSections: SettingsSection[] = [
  section('general', 'settings.generalPanel', panels.generalFields),
  section('payment', 'settings.paymentPanel', panels.paymentFields, { validate: validatePayment }),
  section('login', 'settings.loginPanel', panels.loginFields),
  section('email', 'settings.emailDomainPanel', panels.emailDomainFields),
  section('smtp', 'settings.smtpPanel', panels.smtpFields),
  section('oidc', 'settings.oidcPanel', panels.oidcFields, { extra: (form) => <OidcDiscovery form={form} /> }),
  section('github', 'settings.githubPanel', panels.githubFields),
  section('linuxdo', 'settings.linuxdoPanel', panels.linuxdoFields),
  section('wechat', 'settings.wechatPanel', panels.wechatFields),
  section('telegram', 'settings.telegramPanel', panels.telegramFields),
  section('turnstile', 'settings.turnstilePanel', panels.turnstileFields),
];

/** The system settings panels of spec 01 §2 (presentation panels live in the other tab), one section at a time. */
export function SystemSettingsTab() {
  return <SettingsSections sections={systemSections} />;
}
