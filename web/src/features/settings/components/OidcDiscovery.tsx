import { Button, Form, type FormInstance } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { ApiError } from '../../../lib/http';
import { isHttpUrl } from '../../../lib/rich-text';
import { useDiscoverOidc } from '../api/discover-oidc';
import type { FormValue } from './option-fields';

/**
 * Fills the endpoint fields from the OIDC well-known document. The server fetches it (POST
 * /api/oauth/oidc/discovery), so an http:// intranet provider works while the console's CSP stays
 * strict; its refusal says why (size, time, not JSON, no endpoints).
 */
export function OidcDiscovery({ form }: { form: FormInstance<Record<string, FormValue>> }) {
  const { t } = useTranslation();
  const [loading, setLoading] = useState(false);
  const discovery = useDiscoverOidc();
  const discover = async () => {
    const url = String(form.getFieldValue('oidc.well_known') ?? '').trim();
    if (!isHttpUrl(url)) {
      showError(t('settings.oidcUrlInvalid'));
      return;
    }
    setLoading(true);
    try {
      const doc = await discovery.mutateAsync(url);
      form.setFieldsValue({
        'oidc.authorization_endpoint': doc.authorization_endpoint,
        'oidc.token_endpoint': doc.token_endpoint,
        'oidc.user_info_endpoint': doc.userinfo_endpoint,
      });
      showSuccess(t('settings.oidcDiscovered'));
    } catch (error) {
      showError(t('settings.oidcFetchFailed'));
      // The server's reason (too big, too slow, not JSON, …) follows the spec's message.
      if (error instanceof ApiError && error.status !== 0 && error.message) showError(error.message);
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
