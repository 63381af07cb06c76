import { Flex } from 'antd';
import { OptionsPanel } from './OptionsPanel';
import { WithOptions } from './WithOptions';
import * as panels from './ops-panels';
import { validateJsonChanges } from './OperationTab';

/** The models tab: Gemini, Claude, global pass-through and ping settings. */
export function ModelsTab() {
  return (
    <WithOptions>
      {(options) => (
        <Flex vertical gap={16}>
          <OptionsPanel {...panels.geminiPanel} options={options} validate={validateJsonChanges} />
          <OptionsPanel {...panels.claudePanel} options={options} validate={validateJsonChanges} />
          <OptionsPanel {...panels.globalPanel} options={options} />
        </Flex>
      )}
    </WithOptions>
  );
}
