import { Button, Form, Input, Select, Space, type FormInstance } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { useAllModels } from '../api/get-channel-models';
import { fetchModelsOfChannel } from '../api/fetch-channel-models';
import { fetchUpstreamModels } from '../api/fetch-upstream-models';
import type { ChannelFormValues } from '../hooks/channel-form';
import { stripTrailingSlash } from '../hooks/channel-form';

interface Props {
  form: FormInstance<ChannelFormValues>;
  channelId: number | null;
  defaultModels: string[];
}

/** Models: pick from known names, fill the type's defaults, fetch from the upstream, add custom names. */
export function ChannelModelsField({ form, channelId, defaultModels }: Props) {
  const { t } = useTranslation();
  const allModels = useAllModels();
  const [custom, setCustom] = useState('');
  const [isFetching, setFetching] = useState(false);
  const models = Form.useWatch('models', form) ?? [];
  const options = [...new Set([...(allModels.data ?? []).map((model) => model.id), ...defaultModels, ...models])].map((model) => ({
    value: model,
    label: model,
  }));
  const setModels = (next: string[]) => form.setFieldValue('models', [...new Set(next)]);
  const currentModels = (): string[] => (form.getFieldValue('models') as string[] | undefined) ?? [];

  const fetchFromUpstream = async () => {
    const key = (form.getFieldValue('key') as string | undefined)?.trim() ?? '';
    if (channelId === null && key === '') {
      showError(t('channels.msg.keyRequired'));
      return;
    }
    setFetching(true);
    try {
      const fetched =
        key === '' && channelId !== null
          ? await fetchModelsOfChannel(channelId)
          : await fetchUpstreamModels({
              base_url: stripTrailingSlash((form.getFieldValue('base_url') as string) ?? ''),
              type: form.getFieldValue('type') as number,
              key,
              other: (form.getFieldValue('other') as string | undefined) ?? '',
            });
      setModels([...currentModels(), ...fetched]);
      showSuccess(t('channels.msg.fetchModelsOk'));
    } catch {
      showError(t('channels.msg.fetchModelsFailed'));
    } finally {
      setFetching(false);
    }
  };

  const addCustom = () => {
    const names = custom
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (names.length === 0) return;
    const current = currentModels();
    const existing = names.filter((name) => current.includes(name));
    const fresh = names.filter((name) => !current.includes(name));
    if (existing.length > 0) showError(t('channels.msg.modelsExist'));
    if (fresh.length > 0) setModels([...current, ...fresh]);
    setCustom('');
  };

  return (
    <Form.Item label={t('channels.field.models')} required>
      <Form.Item name="models" noStyle>
        <Select
          mode="multiple"
          allowClear
          aria-label={t('channels.field.models')}
          placeholder={t('channels.field.modelsPlaceholder')}
          options={options}
          maxTagCount={30}
        />
      </Form.Item>
      <Space wrap style={{ marginTop: 8 }}>
        <Button size="small" onClick={() => setModels([...currentModels(), ...defaultModels])} disabled={defaultModels.length === 0}>
          {t('channels.fillDefaultModels')}
        </Button>
        <Button size="small" loading={isFetching} onClick={() => void fetchFromUpstream()}>
          {t('channels.fetchModels')}
        </Button>
        <Button size="small" danger onClick={() => setModels([])}>
          {t('channels.clearModels')}
        </Button>
      </Space>
      <Space.Compact style={{ width: '100%', marginTop: 8 }}>
        <Input
          aria-label={t('channels.customModels')}
          placeholder={t('channels.customModelsPlaceholder')}
          value={custom}
          onChange={(event) => setCustom(event.target.value)}
          onPressEnter={addCustom}
        />
        <Button onClick={addCustom}>{t('channels.addCustom')}</Button>
      </Space.Compact>
    </Form.Item>
  );
}
