import { CheckCircleFilled, CloseCircleFilled, ExclamationCircleFilled } from '@ant-design/icons';
import { Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { copyText } from '../../../lib/clipboard';
import type { PricingModel } from '../api/get-pricing';
import { callPrice, formatUsd, isAvailableIn, tokenPrices } from './pricing-math';

interface Options {
  group: string;
  /** The group the viewer clicked to look at; null for their own view. */
  pickedGroup: string | null;
  groupRatio: number;
  groupRatios: Record<string, number>;
  /** The viewer's auto group order: an `auto` row is priced at the first of them serving the model. */
  autoGroups: string[];
  /** Groups whose ratio is the viewer's special one (GroupGroupRatio). */
  specialRatios: Record<string, number>;
  onGroup: (group: string) => void;
}

/** Columns: availability, name (click copies), billing type, usable groups, ratio, price. */
export function usePricingColumns({
  group,
  pickedGroup,
  groupRatio,
  groupRatios,
  autoGroups,
  specialRatios,
  onGroup,
}: Options): DataColumn<PricingModel>[] {
  const { t } = useTranslation();
  // `auto` has no ratio of its own: each model is billed at the first auto group that serves it.
  const ratioFor = (model: PricingModel): number => {
    if (group !== 'auto') return groupRatio;
    const served = autoGroups.find((name) => model.enable_groups.includes(name));
    return served !== undefined ? (groupRatios[served] ?? 1) : groupRatio;
  };
  const groupTip = (name: string) =>
    name === 'auto'
      ? t('pricing.autoTip', { groups: autoGroups.join(' → ') })
      : Object.hasOwn(specialRatios, name)
        ? t('pricing.specialTip', { ratio: specialRatios[name] })
        : t('pricing.groupTip', { ratio: groupRatios[name] ?? 1 });
  const unpriced = (
    <Tooltip title={t('pricing.unpricedTip')}>
      <Typography.Text type="secondary">{t('pricing.unpriced')}</Typography.Text>
    </Tooltip>
  );
  return [
    {
      key: 'available',
      title: t('pricing.available'),
      render: (_: unknown, model: PricingModel) => {
        if (isAvailableIn(model, pickedGroup)) {
          return (
            <Tooltip title={t('pricing.availableYes')}>
              <CheckCircleFilled style={{ color: '#52c41a' }} aria-label={t('pricing.availableYes')} />
            </Tooltip>
          );
        }
        // Unavailable because nobody priced it, or because the group has no channel for it.
        const [label, tip] = model.is_priced ? ['pricing.availableNo', 'pricing.availableNo'] : ['pricing.unpriced', 'pricing.unpricedTip'];
        const Icon = model.is_priced ? CloseCircleFilled : ExclamationCircleFilled;
        return (
          <Tooltip title={t(tip)}>
            <Icon style={{ color: model.is_priced ? '#ff4d4f' : '#faad14' }} aria-label={t(label)} />
          </Tooltip>
        );
      },
    },
    {
      key: 'model',
      title: t('pricing.model'),
      dataIndex: 'model_name',
      render: (name: string) => (
        <Tag color="green" style={{ cursor: 'pointer' }} onClick={() => void copyText(name)}>
          {name}
        </Tag>
      ),
    },
    {
      key: 'type',
      title: t('pricing.billingType'),
      render: (_: unknown, model: PricingModel) =>
        model.is_priced ? (
          <Tag color={model.quota_type === 1 ? 'teal' : 'violet'}>{t(model.quota_type === 1 ? 'pricing.perCall' : 'pricing.perToken')}</Tag>
        ) : (
          <Tag>{t('pricing.unpriced')}</Tag>
        ),
    },
    {
      key: 'groups',
      title: t('pricing.groups'),
      dataIndex: 'enable_groups',
      render: (groups: string[]) => (
        <Space size={4} wrap>
          {groups.map((name) => (
            <Tooltip key={name} title={groupTip(name)}>
              <Tag
                color={name === group ? 'blue' : Object.hasOwn(specialRatios, name) ? 'gold' : undefined}
                style={{ cursor: 'pointer' }}
                onClick={() => onGroup(name)}
              >
                {name}
              </Tag>
            </Tooltip>
          ))}
        </Space>
      ),
    },
    {
      key: 'ratio',
      title: t('pricing.ratio'),
      render: (_: unknown, model: PricingModel) =>
        !model.is_priced ? (
          unpriced
        ) : model.quota_type === 1 ? (
          <Typography.Text type="secondary">{t('pricing.noRatio')}</Typography.Text>
        ) : (
          <Space orientation="vertical" size={0}>
            <span>{t('pricing.modelRatio', { value: model.model_ratio })}</span>
            <span>{t('pricing.completionRatio', { value: (model.completion_ratio ?? 1).toFixed(3) })}</span>
            <span>{t('pricing.groupRatio', { value: ratioFor(model) })}</span>
          </Space>
        ),
    },
    {
      key: 'price',
      title: t('pricing.price'),
      render: (_: unknown, model: PricingModel) => {
        // Never "$0" for a model nobody priced.
        if (!model.is_priced) return unpriced;
        if (model.quota_type === 1) return <span>{t('pricing.callPrice', { value: formatUsd(callPrice(model, ratioFor(model))) })}</span>;
        const prices = tokenPrices(model, ratioFor(model));
        return (
          <Space orientation="vertical" size={0}>
            <span>{t('pricing.promptPrice', { value: formatUsd(prices.prompt) })}</span>
            <span>{t('pricing.completionPrice', { value: formatUsd(prices.completion) })}</span>
          </Space>
        );
      },
    },
  ];
}
