import { Flex, Spin } from 'antd';
import { useOptions } from '../../settings/api/options';
import { OptionsPanel } from '../../settings/components/OptionsPanel';
import * as panels from './ops-panels';
import { validateJsonChanges } from './OperationTab';

/** The models tab: Gemini, Claude, global pass-through and ping settings. */
export function ModelsTab() {
  const { data: options } = useOptions();
  if (!options) return <Spin />;
  return (
    <Flex vertical gap={16}>
      <OptionsPanel {...panels.geminiPanel} options={options} validate={validateJsonChanges} />
      <OptionsPanel {...panels.claudePanel} options={options} validate={validateJsonChanges} />
      <OptionsPanel {...panels.globalPanel} options={options} />
    </Flex>
  );
}
