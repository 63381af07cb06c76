import { Button, Result, Spin } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useOptions, type OptionMap } from '../api/get-options';

/** Renders with the options once loaded; a failed load shows its message and a retry, never an endless spinner. */
export function WithOptions({ children }: { children: (options: OptionMap) => ReactNode }) {
  const { t } = useTranslation();
  const { data, error, refetch, isFetching } = useOptions();
  if (data) return children(data);
  if (error) {
    return (
      <Result
        status="warning"
        title={t('settings.loadFailed')}
        subTitle={error.message}
        extra={
          <Button loading={isFetching} onClick={() => void refetch()}>
            {t('settings.retry')}
          </Button>
        }
      />
    );
  }
  return <Spin />;
}
