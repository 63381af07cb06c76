import { Button, Checkbox, Form, Input, InputNumber, Select, Space, Switch, type FormInstance } from 'antd';
import { useTranslation } from 'react-i18next';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { useSelfGroups } from '../../../lib/api/self-groups';
import { useUserModels } from '../../../lib/api/user-models';
import { countPresets, quotaPresets, type TokenFormValues } from '../hooks/token-form';
import { expiryShortcuts, expiryText } from '../hooks/token-time';

/** Name, quota (presets, unlimited), expiry (shortcuts), model limits, IP allow list, group, batch count. */
export function TokenFormFields({ form, isCreate }: { form: FormInstance<TokenFormValues>; isCreate: boolean }) {
  const { t } = useTranslation();
  const { data: status } = useStatus();
  const groups = useSelfGroups();
  const models = useUserModels();
  const isUnlimited = Form.useWatch('unlimited_quota', form);
  const isLimited = Form.useWatch('model_limits_enabled', form);
  const group = Form.useWatch('group', form);
  return (
    <>
      <Form.Item name="name" label={t('tokens.field.name')} required={isCreate}>
        <Input aria-label={t('tokens.field.name')} placeholder={t('tokens.field.namePlaceholder')} maxLength={50} />
      </Form.Item>
      <Form.Item label={t('tokens.field.expiry')} extra={t('tokens.field.expiryHelp')}>
        <Form.Item name="expired_text" noStyle>
          <Input aria-label={t('tokens.field.expiry')} placeholder="yyyy-MM-dd HH:mm:ss" />
        </Form.Item>
        <Space wrap style={{ marginTop: 8 }}>
          {expiryShortcuts.map((shortcut) => (
            <Button key={shortcut.key} size="small" onClick={() => form.setFieldValue('expired_text', expiryText(shortcut))}>
              {t(`tokens.expiry.${shortcut.key}`)}
            </Button>
          ))}
        </Space>
      </Form.Item>
      <Form.Item
        label={t('tokens.field.quota')}
        extra={t('tokens.field.quotaHelp', { value: renderQuota(Number(form.getFieldValue('remain_quota') ?? 0), status ?? null) })}
      >
        <Form.Item name="remain_quota" noStyle>
          <InputNumber aria-label={t('tokens.field.quota')} min={0} precision={0} style={{ width: '100%' }} disabled={isUnlimited} />
        </Form.Item>
        <Space wrap style={{ marginTop: 8 }}>
          {quotaPresets.map((quota) => (
            <Button key={quota} size="small" disabled={isUnlimited} onClick={() => form.setFieldValue('remain_quota', quota)}>
              {renderQuota(quota, status ?? null, 0)}
            </Button>
          ))}
          <Form.Item name="unlimited_quota" valuePropName="checked" noStyle>
            <Checkbox>{t('tokens.field.unlimited')}</Checkbox>
          </Form.Item>
        </Space>
      </Form.Item>
      {isCreate && (
        <Form.Item label={t('tokens.field.count')} extra={t('tokens.field.countHelp')}>
          <Form.Item name="count" noStyle>
            <InputNumber aria-label={t('tokens.field.count')} min={1} max={100} precision={0} style={{ width: 160 }} />
          </Form.Item>
          <Space wrap style={{ marginLeft: 8 }}>
            {countPresets.map((count) => (
              <Button key={count} size="small" onClick={() => form.setFieldValue('count', count)}>
                {count}
              </Button>
            ))}
          </Space>
        </Form.Item>
      )}
      <Form.Item name="group" label={t('tokens.field.group')}>
        <Select
          aria-label={t('tokens.field.group')}
          options={[
            { value: '', label: t('tokens.field.ownGroup') },
            ...Object.entries(groups.data ?? {}).map(([name, info]) => ({
              value: name,
              label: name === 'auto' ? `auto · ${info.desc}` : `${name} · ${info.desc} (×${info.ratio})`,
            })),
          ]}
        />
      </Form.Item>
      {group === 'auto' && (
        <Form.Item
          name="cross_group_retry"
          label={t('tokens.field.crossGroupRetry')}
          extra={t('tokens.field.crossGroupRetryHelp')}
          valuePropName="checked"
        >
          <Switch aria-label={t('tokens.field.crossGroupRetry')} />
        </Form.Item>
      )}
      <Form.Item name="model_limits_enabled" label={t('tokens.field.modelLimitsEnabled')} valuePropName="checked">
        <Switch aria-label={t('tokens.field.modelLimitsEnabled')} />
      </Form.Item>
      {isLimited && (
        <Form.Item name="model_limits" label={t('tokens.field.modelLimits')}>
          <Select
            mode="multiple"
            aria-label={t('tokens.field.modelLimits')}
            options={(models.data ?? []).map((model) => ({ value: model, label: model }))}
          />
        </Form.Item>
      )}
      <Form.Item name="allow_ips" label={t('tokens.field.allowIps')} extra={t('tokens.field.allowIpsHelp')}>
        <Input.TextArea
          aria-label={t('tokens.field.allowIps')}
          autoSize={{ minRows: 2, maxRows: 6 }}
          placeholder={'192.168.1.1\n10.0.0.0/8'}
        />
      </Form.Item>
      <Form.Item name="max_concurrency" label={t('tokens.field.maxConcurrency')} extra={t('tokens.field.maxConcurrencyHelp')}>
        <InputNumber aria-label={t('tokens.field.maxConcurrency')} min={0} max={10000} precision={0} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item name="response_cache_ttl" label={t('tokens.field.responseCacheTtl')} extra={t('tokens.field.responseCacheTtlHelp')}>
        <InputNumber aria-label={t('tokens.field.responseCacheTtl')} min={0} max={2592000} precision={0} style={{ width: '100%' }} />
      </Form.Item>
    </>
  );
}
