import { Card, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { OptionsPanel } from './OptionsPanel';
import { isValidJson } from '../hooks/save-options';
import { ChatsEditor } from './ChatsEditor';
import { chatsPanel } from './ops-panels';

/** The Chats option: a visual editor and the raw JSON (checked on blur), each saving on its own. */
export function ChatsSettings({ options }: { options: Record<string, string> }) {
  const { t } = useTranslation();
  return (
    <Card title={t('settingsOps.chatsPanel')} size="small">
      <Tabs
        destroyOnHidden
        items={[
          { key: 'visual', label: t('settingsOps.chatsVisual'), children: <ChatsEditor key={options.Chats} options={options} /> },
          {
            key: 'json',
            label: t('settingsOps.chatsJson'),
            children: (
              <OptionsPanel
                {...chatsPanel}
                options={options}
                validate={(changes) => (Object.values(changes).every(isValidJson) ? null : 'settings.invalidJson')}
              />
            ),
          },
        ]}
      />
    </Card>
  );
}
