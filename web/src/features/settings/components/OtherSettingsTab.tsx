import { Flex, Spin } from 'antd';
import { useOptions } from '../api/options';
import { OptionsPanel } from './OptionsPanel';
import { presentationPanels } from './system-panels';
import { VersionCheckPanel } from './VersionCheckPanel';

/** The other tab: notice, system name, logo, home page, about, footer and the version check. */
export function OtherSettingsTab() {
  const { data: options } = useOptions();
  if (!options) return <Spin />;
  return (
    <Flex vertical gap={16}>
      {presentationPanels.map((panel) => (
        <OptionsPanel key={panel.titleKey} titleKey={panel.titleKey} fields={panel.fields} options={options} />
      ))}
      <VersionCheckPanel />
    </Flex>
  );
}
