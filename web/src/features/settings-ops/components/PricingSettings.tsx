import { Card, Spin, Tabs } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { OptionsPanel } from '../../settings/components/OptionsPanel';
import { useEnabledModels } from '../api/ops';
import { modelRatioPanel } from './ops-panels';
import { parseMap, rowsFromOptions } from './ratio-editor';
import { RatioEditor } from './RatioEditor';
import { ResetRatios } from './ResetRatios';

/** Models some channel serves that have neither a price nor a ratio. */
function useUnsetRows(options: Record<string, string>) {
  const { data: models, isLoading } = useEnabledModels();
  const rows = useMemo(() => {
    const price = parseMap(options.ModelPrice);
    const ratio = parseMap(options.ModelRatio);
    return (models ?? [])
      .filter((name) => !Object.hasOwn(price, name) && !Object.hasOwn(ratio, name))
      .sort()
      .map((name) => ({ name, price: '', ratio: '', completionRatio: '' }));
  }, [models, options]);
  return { rows, isLoading };
}

/** The tabbed pricing area: JSON settings with reset, visual editor, unset models. */
export function PricingSettings({ options }: { options: Record<string, string> }) {
  const { t } = useTranslation();
  const allRows = useMemo(() => rowsFromOptions(options), [options]);
  const unset = useUnsetRows(options);
  const version = `${options.ModelPrice}|${options.ModelRatio}|${options.CompletionRatio}`;
  return (
    <Card title={t('settingsOps.pricingPanel')} size="small">
      <Tabs
        destroyOnHidden
        items={[
          { key: 'json', label: t('settingsOps.pricingJson'), children: <OptionsPanel {...modelRatioPanel} options={options} extra={() => <ResetRatios />} /> },
          { key: 'visual', label: t('settingsOps.pricingVisual'), children: <RatioEditor key={version} options={options} initialRows={allRows} /> },
          {
            key: 'unset',
            label: t('settingsOps.pricingUnset'),
            children: unset.isLoading ? <Spin /> : <RatioEditor key={`${version}|${unset.rows.length}`} options={options} initialRows={unset.rows} isUnsetList />,
          },
        ]}
      />
    </Card>
  );
}
