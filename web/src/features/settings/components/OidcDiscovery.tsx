import { Button, Form, type FormInstance } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { isHttpUrl } from '../../../lib/rich-text';
import type { FormValue } from './option-fields';

interface WellKnown {
  authorization_endpoint?: string;
  token_endpoint?: string;
  userinfo_endpoint?: string;
}

/** Fetches the OIDC well-known document and fills the endpoint fields. */
export function OidcDiscovery({ form }: { form: FormInstance<Record<string, FormValue>> }) {
  const { t } = useTranslation();
  const [loading, setLoading] = useState(false);
  const discover = async () => {
    const url = String(form.getFieldValue('oidc.well_known') ?? '').trim();
    if (!isHttpUrl(url)) {
      showError(t('settings.oidcUrlInvalid'));
      return;
    }
    setLoading(true);
    try {
      const response = await fetch(url);
      if (!response.ok) throw new Error(String(response.status));
      const doc = (await response.json()) as WellKnown;
      form.setFieldsValue({
        'oidc.authorization_endpoint': doc.authorization_endpoint ?? '',
        'oidc.token_endpoint': doc.token_endpoint ?? '',
        'oidc.user_info_endpoint': doc.userinfo_endpoint ?? '',
      });
      showSuccess(t('settings.oidcDiscovered'));
    } catch {
      showError(t('settings.oidcFetchFailed'));
    } finally {
      setLoading(false);
    }
  };
  return (
    <Form.Item>
      <Button loading={loading} onClick={() => void discover()}>
        {t('settings.oidcDiscover')}
      </Button>
    </Form.Item>
  );
}
