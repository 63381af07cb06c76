import { Card, Form, Input, InputNumber, Select, Slider } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSelfGroups } from '../../../lib/api/self-groups';
import { useUserModels } from '../../../lib/api/user-models';
import type { ChatSettings } from '../hooks/useChat';

interface Props {
  settings: ChatSettings;
  onChange: (settings: ChatSettings) => void;
}

/** Side panel: group, searchable model, temperature 0.1–1 (step 0.1), max tokens, system prompt. */
export function PlaygroundSettings({ settings, onChange }: Props) {
  const { t } = useTranslation();
  const { data: groups = {} } = useSelfGroups();
  const { data: models = [] } = useUserModels();
  const set = <K extends keyof ChatSettings>(key: K, value: ChatSettings[K]) => onChange({ ...settings, [key]: value });
  const modelOptions = [...new Set([settings.model, ...models])].filter(Boolean).map((model) => ({ value: model, label: model }));
  return (
    <Card size="small" title={t('playground.settings')}>
      <Form layout="vertical">
        <Form.Item label={t('playground.group')}>
          <Select
            aria-label={t('playground.group')}
            value={settings.group}
            onChange={(value) => set('group', value)}
            options={Object.entries(groups).map(([name, info]) => ({
              value: name,
              label: t('playground.groupOption', { name, desc: info.desc, ratio: info.ratio }),
            }))}
          />
        </Form.Item>
        <Form.Item label={t('playground.model')}>
          <Select
            aria-label={t('playground.model')}
            showSearch={{ optionFilterProp: 'label' }}
            value={settings.model}
            onChange={(value) => set('model', value)}
            options={modelOptions}
          />
        </Form.Item>
        <Form.Item
          label={
            settings.temperature > 0 ? t('playground.temperature', { value: settings.temperature }) : t('playground.temperatureDefault')
          }
          extra={settings.temperature > 0 ? undefined : t('playground.temperatureHint')}
        >
          <Slider
            aria-label={t('playground.temperatureLabel')}
            min={0.1}
            max={1}
            step={0.1}
            value={settings.temperature}
            onChange={(value) => set('temperature', value)}
          />
        </Form.Item>
        <Form.Item label={t('playground.maxTokens')} extra={t('playground.maxTokensHint')}>
          <InputNumber
            aria-label={t('playground.maxTokens')}
            min={0}
            precision={0}
            style={{ width: '100%' }}
            value={settings.maxTokens}
            onChange={(value) => set('maxTokens', value ?? 0)}
          />
        </Form.Item>
        <Form.Item label={t('playground.systemPrompt')} extra={t('playground.systemPromptHint')}>
          <Input.TextArea
            aria-label={t('playground.systemPrompt')}
            autoSize={{ minRows: 3, maxRows: 8 }}
            value={settings.systemPrompt}
            onChange={(event) => set('systemPrompt', event.target.value)}
          />
        </Form.Item>
      </Form>
    </Card>
  );
}
