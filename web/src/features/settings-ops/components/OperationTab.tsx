import { Flex, Spin } from 'antd';
import { useOptions } from '../../settings/api/options';
import { isValidJson } from '../../settings/hooks/save-options';
import { OptionsPanel } from '../../settings/components/OptionsPanel';
import { LogCleanup } from './LogCleanup';
import * as panels from './ops-panels';
import { PricingSettings } from './PricingSettings';

/** Blocks saving when a JSON option about to be saved does not parse. */
export function validateJsonChanges(changes: Record<string, string>): string | null {
  return Object.values(changes).every((value) => isValidJson(value)) ? null : 'settings.invalidJson';
}

/** The operation tab (spec 02 §2): general, groups, pricing, drawing, sensitive words, logs, dashboard, monitoring, quota. */
export function OperationTab() {
  const { data: options } = useOptions();
  if (!options) return <Spin />;
  return (
    <Flex vertical gap={16}>
      <OptionsPanel {...panels.generalPanel} options={options} />
      <OptionsPanel {...panels.groupRatioPanel} options={options} validate={validateJsonChanges} />
      <PricingSettings options={options} />
      <OptionsPanel {...panels.drawingPanel} options={options} />
      <OptionsPanel {...panels.sensitivePanel} options={options} />
      <OptionsPanel {...panels.logsPanel} options={options} extra={() => <LogCleanup />} />
      <OptionsPanel {...panels.dashboardPanel} options={options} />
      <OptionsPanel {...panels.monitoringPanel} options={options} />
      <OptionsPanel {...panels.quotaPanel} options={options} />
    </Flex>
  );
}
