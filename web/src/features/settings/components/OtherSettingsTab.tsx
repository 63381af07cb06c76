import { panelSection, SettingsSections, type SettingsSection } from './SettingsSections';
import { presentationPanels } from './system-panels';
import { VersionCheckPanel } from './VersionCheckPanel';

const otherSections: SettingsSection[] = [
  ...presentationPanels.map((panel) => panelSection(panel.key, panel.titleKey, panel.fields)),
  { key: 'version', labelKey: 'settings.versionPanel', render: () => <VersionCheckPanel /> },
];

/** The other tab: notice, system name, logo, home page, about, footer and the version check, one section at a time. */
export function OtherSettingsTab() {
  return <SettingsSections sections={otherSections} />;
}
