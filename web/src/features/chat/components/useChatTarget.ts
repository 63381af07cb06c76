import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { showError } from '../../../lib/feedback';
import { useStatus } from '../../../lib/status';
import { findEnabledKey } from '../api/get-enabled-key';
import { buildChatLink, chatLinkAt, serverAddressOf } from './chat-link';

export type ChatTarget = { state: 'loading' } | { state: 'ready'; url: string; kind: 'web' | 'app' } | { state: 'failed'; message: string };

/** Resolves the chat link at `index` with the first enabled token; none → message, then /token after 1.5 s. */
export function useChatTarget(index: number): ChatTarget {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { data: status, isLoading } = useStatus();
  const [target, setTarget] = useState<ChatTarget>({ state: 'loading' });

  useEffect(() => {
    if (isLoading) return;
    const found = chatLinkAt(status ?? null, index);
    if ('problem' in found) {
      const message = t(found.problem === 'notConfigured' ? 'chat.notConfigured' : 'chat.badConfig');
      showError(message);
      setTarget({ state: 'failed', message });
      return;
    }
    let isCurrent = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    findEnabledKey()
      .then((key) => {
        if (!isCurrent) return;
        if (!key) {
          const message = t('chat.noEnabledToken');
          showError(message);
          setTarget({ state: 'failed', message });
          timer = setTimeout(() => {
            void navigate('/token');
          }, 1500);
          return;
        }
        setTarget({ state: 'ready', url: buildChatLink(found.link, key, serverAddressOf(status ?? null)), kind: found.kind });
      })
      .catch((error: unknown) => {
        if (isCurrent) setTarget({ state: 'failed', message: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      isCurrent = false;
      if (timer) clearTimeout(timer);
    };
  }, [index, isLoading, navigate, status, t]);

  return target;
}
