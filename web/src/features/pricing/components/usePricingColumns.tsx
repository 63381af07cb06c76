import { CheckCircleFilled, CloseCircleFilled } from '@ant-design/icons';
import { Space, Tag, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { DataColumn } from '../../../components/DataTable';
import { copyText } from '../../../lib/clipboard';
import type { PricingModel } from '../api/pricing';
import { callPrice, formatUsd, tokenPrices } from './pricing-math';

interface Options {
  group: string;
  groupRatio: number;
  groupRatios: Record<string, number>;
  onGroup: (group: string) => void;
}

/** Columns: availability, name (click copies), billing type, usable groups, ratio, price. */
export function usePricingColumns({ group, groupRatio, groupRatios, onGroup }: Options): DataColumn<PricingModel>[] {
  const { t } = useTranslation();
  return [
    {
      key: 'available',
      title: t('pricing.available'),
      render: (_: unknown, model: PricingModel) =>
        model.enable_groups.includes(group) ? (
          <Tooltip title={t('pricing.availableYes')}>
            <CheckCircleFilled style={{ color: '#52c41a' }} aria-label={t('pricing.availableYes')} />
          </Tooltip>
        ) : (
          <Tooltip title={t('pricing.availableNo')}>
            <CloseCircleFilled style={{ color: '#ff4d4f' }} aria-label={t('pricing.availableNo')} />
          </Tooltip>
        ),
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
      dataIndex: 'quota_type',
      render: (type: number) => <Tag color={type === 1 ? 'teal' : 'violet'}>{t(type === 1 ? 'pricing.perCall' : 'pricing.perToken')}</Tag>,
    },
    {
      key: 'groups',
      title: t('pricing.groups'),
      dataIndex: 'enable_groups',
      render: (groups: string[]) => (
        <Space size={4} wrap>
          {groups.map((name) => (
            <Tooltip key={name} title={t('pricing.groupTip', { ratio: groupRatios[name] ?? 1 })}>
              <Tag color={name === group ? 'blue' : undefined} style={{ cursor: 'pointer' }} onClick={() => onGroup(name)}>
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
        model.quota_type === 1 ? (
          <Typography.Text type="secondary">{t('pricing.noRatio')}</Typography.Text>
        ) : (
          <Space orientation="vertical" size={0}>
            <span>{t('pricing.modelRatio', { value: model.model_ratio })}</span>
            <span>{t('pricing.completionRatio', { value: model.completion_ratio.toFixed(3) })}</span>
            <span>{t('pricing.groupRatio', { value: groupRatio })}</span>
          </Space>
        ),
    },
    {
      key: 'price',
      title: t('pricing.price'),
      render: (_: unknown, model: PricingModel) => {
        if (model.quota_type === 1) return <span>{t('pricing.callPrice', { value: formatUsd(callPrice(model, groupRatio)) })}</span>;
        const prices = tokenPrices(model, groupRatio);
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
