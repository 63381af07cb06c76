import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider, theme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { bindFeedback } from '../lib/feedback';
import '../lib/i18n';
import { ThemeModeProvider, useThemeMode } from './theme';

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 },
      mutations: { retry: false },
    },
  });
}

function FeedbackBridge({ children }: { children: ReactNode }) {
  const { message, modal } = AntApp.useApp();
  bindFeedback(message, modal);
  return <>{children}</>;
}

function ThemedConfig({ children }: { children: ReactNode }) {
  const { mode } = useThemeMode();
  const { i18n } = useTranslation();
  useEffect(() => {
    document.documentElement.dataset.theme = mode;
    document.body.style.background = mode === 'dark' ? '#141414' : '#f5f6f8';
  }, [mode]);
  return (
    <ConfigProvider
      locale={i18n.language === 'en' ? enUS : zhCN}
      theme={{
        algorithm: mode === 'dark' ? theme.darkAlgorithm : theme.defaultAlgorithm,
        token: { colorPrimary: '#2f6bff', borderRadius: 8 },
      }}
    >
      <AntApp>
        <FeedbackBridge>{children}</FeedbackBridge>
      </AntApp>
    </ConfigProvider>
  );
}

/** QueryClient, theme (dark/light algorithm), antd locale and i18n for the whole console. */
export function AppProviders({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <QueryClientProvider client={client}>
      <ThemeModeProvider>
        <ThemedConfig>{children}</ThemedConfig>
      </ThemeModeProvider>
    </QueryClientProvider>
  );
}
