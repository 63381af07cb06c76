import { Card, Spin, Tabs } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { OptionsPanel } from './OptionsPanel';
import { useEnabledModels } from '../api/get-enabled-models';
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

const views = ['json', 'visual', 'unset'] as const;
type View = (typeof views)[number];

/**
 * The tabbed pricing area: JSON settings with reset, visual editor, unset models. The tab is kept in
 * ?view= beside ?tab= and ?section=, so a link opens the unset models (view=unset).
 */
export function PricingSettings({ options }: { options: Record<string, string> }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const view: View = views.find((item) => item === params.get('view')) ?? 'json';
  const choose = (key: string) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      next.set('view', key);
      return next;
    });
  const allRows = useMemo(() => rowsFromOptions(options), [options]);
  const unset = useUnsetRows(options);
  const version = `${options.ModelPrice}|${options.ModelRatio}|${options.CompletionRatio}`;
  return (
    <Card title={t('settingsOps.pricingPanel')} size="small">
      <Tabs
        destroyOnHidden
        activeKey={view}
        onChange={choose}
        items={[
          {
            key: 'json',
            label: t('settingsOps.pricingJson'),
            children: <OptionsPanel {...modelRatioPanel} options={options} extra={() => <ResetRatios />} />,
          },
          {
            key: 'visual',
            label: t('settingsOps.pricingVisual'),
            children: <RatioEditor key={version} options={options} initialRows={allRows} />,
          },
          {
            key: 'unset',
            label: t('settingsOps.pricingUnset'),
            children: unset.isLoading ? (
              <Spin />
            ) : (
              <RatioEditor key={`${version}|${unset.rows.length}`} options={options} initialRows={unset.rows} isUnsetList />
            ),
          },
        ]}
      />
    </Card>
  );
}
