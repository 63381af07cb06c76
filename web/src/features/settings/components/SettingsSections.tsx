import { Flex, Menu } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { OptionMap } from '../api/get-options';
import { WithOptions } from './WithOptions';
import type { OptionField } from './option-fields';
import { OptionsPanel, type OptionsPanelProps } from './OptionsPanel';

/** One sub-section of a settings tab: a menu entry and the panel it shows. */
export interface SettingsSection {
  key: string;
  labelKey: string;
  render: (options: OptionMap) => ReactNode;
}

/** A section holding one options panel; its menu entry reads like the panel's title. */
export const panelSection = (
  key: string,
  titleKey: string,
  fields: OptionField[],
  more: Partial<OptionsPanelProps> = {},
): SettingsSection => ({
  key,
  labelKey: titleKey,
  render: (options) => <OptionsPanel titleKey={titleKey} fields={fields} options={options} {...more} />,
});

/**
 * A settings tab split into sub-sections: a side menu and only the chosen section's panel.
 * The section is kept in ?section= next to ?tab= so links open the right panel.
 */
export function SettingsSections({ sections }: { sections: SettingsSection[] }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const requested = params.get('section');
  const active = sections.find((section) => section.key === requested) ?? sections[0]!;
  const choose = (key: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set('section', key);
      return next;
    });
  return (
    <Flex gap={16} wrap="wrap" align="flex-start">
      <Menu
        mode="inline"
        aria-label={t('settings.sections')}
        selectedKeys={[active.key]}
        onClick={({ key }) => choose(key)}
        items={sections.map((section) => ({ key: section.key, label: t(section.labelKey) }))}
        style={{ width: 200, flex: '0 0 auto', borderInlineEnd: 'none' }}
      />
      <div style={{ flex: '1 1 480px', minWidth: 0 }}>
        <WithOptions>{(options) => active.render(options)}</WithOptions>
      </div>
    </Flex>
  );
}
