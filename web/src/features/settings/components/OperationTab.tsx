import { isValidJson } from '../hooks/save-options';
import type { OptionsPanelProps } from './OptionsPanel';
import { panelSection, SettingsSections, type SettingsSection } from './SettingsSections';
import { ChatsSettings } from './ChatsSettings';
import { LogCleanup } from './LogCleanup';
import * as panels from './ops-panels';
import { PricingSettings } from './PricingSettings';

/** Blocks saving when a JSON option about to be saved does not parse. */
export function validateJsonChanges(changes: Record<string, string>): string | null {
  return Object.values(changes).every((value) => isValidJson(value)) ? null : 'settings.invalidJson';
}

const section = (key: string, panel: panels.PanelSpec, more: Partial<OptionsPanelProps> = {}) =>
  panelSection(key, panel.titleKey, panel.fields, more);

const operationSections: SettingsSection[] = [
  section('general', panels.generalPanel),
  { key: 'chats', labelKey: 'settingsOps.chatsPanel', render: (options) => <ChatsSettings options={options} /> },
  section('groups', panels.groupRatioPanel, { validate: validateJsonChanges }),
  { key: 'pricing', labelKey: 'settingsOps.pricingPanel', render: (options) => <PricingSettings options={options} /> },
  section('drawing', panels.drawingPanel),
  section('sensitive', panels.sensitivePanel),
  section('logs', panels.logsPanel, { extra: () => <LogCleanup /> }),
  section('dashboard', panels.dashboardPanel),
  section('monitoring', panels.monitoringPanel),
  section('reliability', panels.reliabilityPanel),
  section('performance', panels.performancePanel),
  section('quota', panels.quotaPanel),
];

/** The operation tab: general, chats, groups, pricing, drawing, sensitive words, logs, dashboard, monitoring, retries and limits, performance, quota — one section at a time. */
export function OperationTab() {
  return <SettingsSections sections={operationSections} />;
}
