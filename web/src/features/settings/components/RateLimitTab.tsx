import { useTranslation } from 'react-i18next';
import { OptionsPanel } from './OptionsPanel';
import { WithOptions } from './WithOptions';
import { rateLimitPanel } from './ops-panels';

/** The ratelimit tab: model request rate limit. */
export function RateLimitTab() {
  const { t } = useTranslation();
  return (
    <WithOptions>
      {(options) => (
        <OptionsPanel
          {...rateLimitPanel}
          options={options}
          description={<p style={{ marginTop: 0 }}>{t('settingsOps.rateLimitDescription')}</p>}
        />
      )}
    </WithOptions>
  );
}
