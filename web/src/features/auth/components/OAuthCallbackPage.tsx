import { Spin, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { showError, showSuccess } from '../../../lib/feedback';
import { userStore } from '../../../lib/user-store';
import type { OAuthProvider } from '../../../lib/oauth';
import { useExchangeOAuthCode } from '../api/exchange-oauth-code';
import { useFinishSignIn } from '../hooks/useFinishSignIn';

/** Third-party callback: exchanges the code, then binds (→ /personal) or signs in (→ /token, or the second step). */
export function OAuthCallbackPage({ provider }: { provider: OAuthProvider }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const started = useRef(false);
  const finishSignIn = useFinishSignIn();
  const exchange = useExchangeOAuthCode();

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const code = params.get('code') ?? '';
    const state = params.get('state') ?? '';
    const iss = params.get('iss') ?? undefined;
    // Bindings live on /personal here (the spec's /setting is new-api's personal page; ours is admin-only).
    const settingsPath = userStore.get() ? '/personal' : '/login';
    exchange
      .mutateAsync({ provider, code, state, iss })
      .then((body) => {
        if (body.message === 'bind') {
          showSuccess(t('auth.bindSuccess'));
          navigate('/personal');
          return;
        }
        if (body.data) finishSignIn(body.data);
        else navigate('/token');
      })
      .catch((error: unknown) => {
        showError(error instanceof Error ? error.message : String(error));
        showError(t('auth.oauthFailed'));
        window.setTimeout(() => {
          void navigate(settingsPath);
        }, 1500);
      });
    // finishSignIn changes identity each render; the exchange runs once (started).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [navigate, params, provider, t]);

  return (
    <div style={{ textAlign: 'center', padding: 64 }}>
      <Spin size="large" />
      <Typography.Paragraph style={{ marginTop: 16 }}>{t('auth.processing')}</Typography.Paragraph>
    </div>
  );
}
