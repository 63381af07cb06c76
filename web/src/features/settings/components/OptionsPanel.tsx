import { Button, Card, Col, Form, Input, InputNumber, Row, Select, Switch } from 'antd';
import { useEffect, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { feedback, showError } from '../../../lib/feedback';
import i18n from '../../../lib/i18n';
import { isValidJson } from '../hooks/save-options';
import { useOptionSave } from '../hooks/useOptionSave';
import { changedOptions, toFormValue, type FormValue, type OptionField } from './option-fields';

export interface OptionsPanelProps {
  titleKey: string;
  fields: OptionField[];
  options: Record<string, string>;
  /** Returns a message key to block saving, given the option values about to be saved. */
  validate?: (changes: Record<string, string>, options: Record<string, string>) => string | null;
  extra?: (form: ReturnType<typeof Form.useForm<Record<string, FormValue>>>[0]) => ReactNode;
  description?: ReactNode;
}

/** Receives value/checked and onChange from Form.Item and hands them to the input. */
function FieldInput({ field, label, ...control }: { field: OptionField; label: string; [prop: string]: unknown }) {
  const form = Form.useFormInstance();
  const enabler = Form.useWatch(field.enabledBy ?? '__no_enabler__', form) as boolean | undefined;
  if (field.enabledBy && !enabler) control.disabled = true;
  switch (field.kind) {
    case 'switch':
      return <Switch aria-label={label} {...control} />;
    case 'number':
      return <InputNumber aria-label={label} min={field.min} max={field.max} step={field.step} style={{ width: '100%' }} {...control} />;
    case 'select':
      return (
        <Select
          aria-label={label}
          options={field.choices?.map((choice) => ({ value: choice.value, label: i18n.t(choice.labelKey) }))}
          {...control}
        />
      );
    case 'secret':
      return <Input.Password aria-label={label} autoComplete="new-password" placeholder={field.placeholder} {...control} />;
    case 'textarea':
    case 'json':
      return (
        <Input.TextArea
          aria-label={label}
          autoSize={{ minRows: field.kind === 'json' ? 4 : 5, maxRows: 16 }}
          placeholder={field.placeholder}
          style={field.kind === 'json' ? { fontFamily: 'monospace' } : undefined}
          {...control}
        />
      );
    case 'tags':
      return (
        <Select aria-label={label} mode="tags" tokenSeparators={[',', ' ']} open={false} placeholder={field.placeholder} {...control} />
      );
    default:
      return <Input aria-label={label} placeholder={field.placeholder} {...control} />;
  }
}

/** One settings panel: renders its options, saves only what changed, with the spec's rules. */
export function OptionsPanel({ titleKey, fields, options, validate, extra, description }: OptionsPanelProps) {
  const { t } = useTranslation();
  const [form] = Form.useForm<Record<string, FormValue>>();
  const { save, isSaving } = useOptionSave();
  const initialValues = useMemo(
    () => Object.fromEntries(fields.map((field) => [field.key, toFormValue(field, options[field.key])])),
    [fields, options],
  );
  useEffect(() => form.setFieldsValue(initialValues), [form, initialValues]);

  const onSwitch = (field: OptionField, checked: boolean) => {
    if (checked || !field.confirmOffKey) return;
    feedback.modal.confirm({
      title: t('settings.confirmTitle'),
      content: t(field.confirmOffKey),
      okText: t('common.confirm'),
      cancelText: t('common.cancel'),
      onCancel: () => form.setFieldValue(field.key, true),
    });
  };

  const submit = async () => {
    const values = await form.validateFields();
    const changes = changedOptions(fields, options, values);
    const problem = Object.keys(changes).length > 0 && validate ? validate(changes, options) : null;
    if (problem) {
      showError(t(problem));
      return;
    }
    if (await save(changes)) {
      for (const field of fields) if (field.kind === 'secret') form.setFieldValue(field.key, '');
    }
  };

  return (
    <Card title={t(titleKey)} size="small" styles={{ body: { paddingBottom: 8 } }}>
      {description}
      <Form
        form={form}
        layout="vertical"
        initialValues={initialValues}
        onFinish={() => void submit()}
        onFinishFailed={() => showError(t('settingsOps.checkInput'))}
      >
        <Row gutter={16}>
          {fields.map((field) => {
            const label = t(field.labelKey);
            return (
              <Col
                key={field.key}
                xs={24}
                md={field.span ?? (field.kind === 'switch' ? 8 : field.kind === 'textarea' || field.kind === 'json' ? 24 : 12)}
              >
                <Form.Item
                  name={field.key}
                  label={label}
                  extra={
                    field.extraKey ? (
                      <span style={field.isWarning ? { color: 'var(--ant-color-warning)' } : undefined}>{t(field.extraKey)}</span>
                    ) : field.kind === 'secret' ? (
                      t('settings.secretHint')
                    ) : undefined
                  }
                  valuePropName={field.kind === 'switch' ? 'checked' : 'value'}
                  validateTrigger={field.kind === 'json' ? 'onBlur' : 'onChange'}
                  rules={
                    field.kind === 'json'
                      ? [
                          {
                            validator: (_rule, value: string) =>
                              isValidJson(value ?? '')
                                ? Promise.resolve()
                                : Promise.reject(new Error(t(field.jsonErrorKey ?? 'settings.invalidJson'))),
                          },
                        ]
                      : field.kind === 'number' && (field.min !== undefined || field.max !== undefined)
                        ? [
                            {
                              type: 'number',
                              min: field.min,
                              max: field.max,
                              message: t('settingsOps.outOfRange', { min: field.min ?? '-∞', max: field.max ?? '∞' }),
                            },
                          ]
                        : undefined
                  }
                  getValueFromEvent={field.kind === 'switch' ? (checked: boolean) => (onSwitch(field, checked), checked) : undefined}
                >
                  <FieldInput field={field} label={label} />
                </Form.Item>
              </Col>
            );
          })}
        </Row>
        {extra?.(form)}
        <Form.Item>
          <Button type="primary" htmlType="submit" loading={isSaving}>
            {t('settings.save', { name: t(titleKey) })}
          </Button>
        </Form.Item>
      </Form>
    </Card>
  );
}
