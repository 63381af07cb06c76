import { Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useOptions } from '../../settings/api/options';
import { OptionsPanel } from '../../settings/components/OptionsPanel';
import { rateLimitPanel } from './ops-panels';

/** The ratelimit tab: model request rate limit. */
export function RateLimitTab() {
  const { t } = useTranslation();
  const { data: options } = useOptions();
  if (!options) return <Spin />;
  return <OptionsPanel {...rateLimitPanel} options={options} description={<p style={{ marginTop: 0 }}>{t('settingsOps.rateLimitDescription')}</p>} />;
}
