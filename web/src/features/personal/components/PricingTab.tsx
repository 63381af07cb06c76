import { Button, Form, Switch, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showSuccess } from '../../../lib/feedback';
import type { SelfUser } from '@modelgate/shared';
import { useUpdateUserSetting } from '../api/update-user-setting';
import { parseUserSetting } from '../hooks/user-setting';

/** Whether this user accepts calls to models that have no price or ratio set. */
export function PricingTab({ user }: { user: SelfUser }) {
  const { t } = useTranslation();
  const initial = parseUserSetting(user.setting);
  const [accept, setAccept] = useState(initial.accept_unset_model_ratio_model);
  const [loading, setLoading] = useState(false);
  const updateUserSetting = useUpdateUserSetting();
  const save = async () => {
    setLoading(true);
    try {
      await updateUserSetting.mutateAsync({ ...initial, accept_unset_model_ratio_model: accept });
      showSuccess(t('personal.notifySaved'));
    } catch {
      // shown by the http client
    } finally {
      setLoading(false);
    }
  };
  return (
    <Form layout="vertical">
      <Form.Item label={t('personal.acceptUnset')} extra={t('personal.acceptUnsetHint')}>
        <Switch checked={accept} onChange={setAccept} aria-label={t('personal.acceptUnset')} />
      </Form.Item>
      <Typography.Paragraph type="secondary">{t('personal.pricingHint')}</Typography.Paragraph>
      <Button type="primary" loading={loading} onClick={() => void save()}>
        {t('common.save')}
      </Button>
    </Form>
  );
}
