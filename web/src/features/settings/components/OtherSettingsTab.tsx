import { OptionsPanel } from './OptionsPanel';
import { SettingsSections, type SettingsSection } from './SettingsSections';
import { presentationPanels } from './system-panels';
import { VersionCheckPanel } from './VersionCheckPanel';

const otherSections: SettingsSection[] = [
  ...presentationPanels.map((panel) => ({
    key: panel.key,
    labelKey: panel.titleKey,
    render: (options: Record<string, string>) => <OptionsPanel titleKey={panel.titleKey} fields={panel.fields} options={options} />,
  })),
  { key: 'version', labelKey: 'settings.versionPanel', render: () => <VersionCheckPanel /> },
];

/** The other tab: notice, system name, logo, home page, about, footer and the version check, one section at a time. */
export function OtherSettingsTab() {
  return <SettingsSections sections={otherSections} />;
}
