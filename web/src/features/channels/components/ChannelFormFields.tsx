import { channelPriorityMin } from '@modelgate/shared';
import { Checkbox, Col, Form, Input, InputNumber, Row, Select, Switch, type FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ChannelType } from '@modelgate/shared';
import { useGroups } from '../../../lib/api/groups';
import type { ChannelFormValues } from '../hooks/channel-form';
import { ChannelKeyField } from './ChannelKeyField';
import { ChannelModelsField } from './ChannelModelsField';

interface Props {
  form: FormInstance<ChannelFormValues>;
  types: ChannelType[];
  meta: ChannelType | undefined;
  channelId: number | null;
}

const jsonPlaceholder = (example: object) => JSON.stringify(example, null, 2);

/** The editor's fields; the type-specific ones (key hint, base URL, extra fields, default models) come from the type metadata. */
export function ChannelFormFields({ form, types, meta, channelId }: Props) {
  const { t } = useTranslation();
  const groups = useGroups();
  const isCreate = channelId === null;
  const baseUrlField = meta?.extraFields.find((field) => field.name === 'base_url');
  const otherFields = meta?.extraFields.filter((field) => field.name !== 'base_url') ?? [];
  return (
    <>
      <Form.Item name="type" label={t('channels.field.type')}>
        <Select
          showSearch={{ optionFilterProp: 'label' }}
          aria-label={t('channels.field.type')}
          options={types.map((item) => ({ value: item.type, label: item.displayName }))}
        />
      </Form.Item>
      <Form.Item name="name" label={t('channels.field.name')} required>
        <Input aria-label={t('channels.field.name')} placeholder={t('channels.field.namePlaceholder')} />
      </Form.Item>
      <Form.Item
        name="base_url"
        label={baseUrlField?.label ?? t('channels.field.baseUrl')}
        required={baseUrlField?.required}
        extra={meta?.defaultBaseURL ? t('channels.field.baseUrlDefault', { url: meta.defaultBaseURL }) : undefined}
      >
        <Input aria-label={t('channels.field.baseUrl')} placeholder={baseUrlField?.placeholder ?? meta?.defaultBaseURL ?? ''} />
      </Form.Item>
      <ChannelKeyField form={form} channelId={channelId} keyHint={meta?.keyHint} />
      {isCreate && (
        <Form.Item name="isBatch" valuePropName="checked" style={{ marginTop: -12 }}>
          <Checkbox>{t('channels.field.batch')}</Checkbox>
        </Form.Item>
      )}
      {otherFields.map((field) => (
        <Form.Item key={field.name} name={field.name} label={field.label} required={field.required}>
          <Input aria-label={field.label} placeholder={field.placeholder} />
        </Form.Item>
      ))}
      <ChannelModelsField form={form} channelId={channelId} defaultModels={meta?.defaultModels ?? []} />
      <Form.Item name="groups" label={t('channels.field.groups')}>
        <Select
          mode="multiple"
          aria-label={t('channels.field.groups')}
          options={(groups.data ?? []).map((group) => ({ value: group, label: group }))}
        />
      </Form.Item>
      <Form.Item name="model_mapping" label={t('channels.field.modelMapping')} extra={t('channels.field.modelMappingHelp')}>
        <Input.TextArea
          aria-label={t('channels.field.modelMapping')}
          autoSize={{ minRows: 2, maxRows: 8 }}
          placeholder={jsonPlaceholder({ 'gpt-3.5-turbo': 'gpt-4o-mini' })}
        />
      </Form.Item>
      <Form.Item name="status_code_mapping" label={t('channels.field.statusCodeMapping')} extra={t('channels.field.statusCodeMappingHelp')}>
        <Input.TextArea
          aria-label={t('channels.field.statusCodeMapping')}
          autoSize={{ minRows: 2, maxRows: 6 }}
          placeholder={jsonPlaceholder({ 400: '500' })}
        />
      </Form.Item>
      <Form.Item name="param_override" label={t('channels.field.paramOverride')} extra={t('channels.field.paramOverrideHelp')}>
        <Input.TextArea
          aria-label={t('channels.field.paramOverride')}
          autoSize={{ minRows: 2, maxRows: 6 }}
          placeholder={jsonPlaceholder({ temperature: 0 })}
        />
      </Form.Item>
      <Row gutter={12}>
        <Col span={12}>
          <Form.Item name="tag" label={t('channels.field.tag')}>
            <Input aria-label={t('channels.field.tag')} />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item name="test_model" label={t('channels.field.testModel')}>
            <Input aria-label={t('channels.field.testModel')} placeholder={meta?.defaultModels[0]} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="priority" label={t('channels.field.priority')}>
            <InputNumber aria-label={t('channels.field.priority')} precision={0} min={channelPriorityMin} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="weight" label={t('channels.field.weight')}>
            <InputNumber aria-label={t('channels.field.weight')} precision={0} min={0} style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="auto_ban" label={t('channels.field.autoBan')} valuePropName="checked">
            <Switch aria-label={t('channels.field.autoBan')} />
          </Form.Item>
        </Col>
        {(['max_concurrency', 'rpm_limit', 'key_max_concurrency'] as const).map((field) => (
          <Col span={8} key={field}>
            <Form.Item name={field} label={t(`channels.field.${field}`)} extra={t(`channels.field.${field}Help`)}>
              <InputNumber aria-label={t(`channels.field.${field}`)} precision={0} min={0} max={1000000} style={{ width: '100%' }} />
            </Form.Item>
          </Col>
        ))}
        <Col span={24}>
          <Form.Item name="multi_key_mode" label={t('channels.field.multiKeyMode')} extra={t('channels.field.multiKeyModeHelp')}>
            <Select
              aria-label={t('channels.field.multiKeyMode')}
              options={[
                { value: 'random', label: t('channels.field.multiKeyRandom') },
                { value: 'polling', label: t('channels.field.multiKeyPolling') },
              ]}
            />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}
