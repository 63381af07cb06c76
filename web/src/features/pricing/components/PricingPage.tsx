import { CopyOutlined, QuestionCircleOutlined, SearchOutlined } from '@ant-design/icons';
import { defaultGroup } from '@modelgate/shared';
import { Alert, Button, Card, Flex, Input, Space, Tooltip, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DataTable } from '../../../components/DataTable';
import { copyText } from '../../../lib/clipboard';
import { useCurrentUser } from '../../../lib/user-store';
import { usePricing, type PricingModel } from '../api/get-pricing';
import { pricingKeys } from '../api/keys';
import { comparePricing, matchesModel } from './pricing-math';
import { usePricingColumns } from './usePricingColumns';

/** Public pricing (/pricing): group banner, formula, fuzzy search, copy selected, priced table. */
export function PricingPage() {
  const { t } = useTranslation();
  const user = useCurrentUser();
  const { data, dataUpdatedAt } = usePricing();
  const [search, setSearch] = useState('');
  const [picked, setPicked] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const groupRatios = useMemo(() => data?.groupRatio ?? {}, [data]);
  const ownGroup = user?.group || defaultGroup;
  const group = picked ?? ownGroup;
  const ratioOf = (name: string) => (Object.hasOwn(groupRatios, name) ? Number(groupRatios[name]) : 1);
  const groupRatio = ratioOf(group);
  const autoGroups = useMemo(() => data?.autoGroups ?? [], [data]);
  const specialRatios = useMemo(() => data?.specialGroupRatio ?? {}, [data]);
  const columns = usePricingColumns({ group, pickedGroup: picked, groupRatio, groupRatios, autoGroups, specialRatios, onGroup: setPicked });
  const models = useMemo(
    () => (data?.models ?? []).filter((model) => matchesModel(model.model_name, search)).sort(comparePricing),
    [data, search],
  );

  return (
    <Card>
      <Flex vertical gap={12}>
        <Typography.Title level={4} style={{ margin: 0 }}>
          {t('pricing.title')}
        </Typography.Title>
        {user ? (
          <Alert type="success" showIcon title={t('pricing.groupBanner', { group, ratio: groupRatio })} />
        ) : (
          <Alert type="warning" showIcon title={t('pricing.guestBanner', { ratio: ratioOf(picked ?? defaultGroup) })} />
        )}
        {autoGroups.length > 0 && <Alert type="info" showIcon title={t('pricing.autoBanner', { groups: autoGroups.join(' → ') })} />}
        {Object.keys(specialRatios).length > 0 && (
          <Alert
            type="info"
            showIcon
            title={t('pricing.specialBanner', {
              ratios: Object.entries(specialRatios)
                .map(([name, ratio]) => `${name} ×${ratio}`)
                .join('，'),
            })}
          />
        )}
        <Alert
          type="info"
          showIcon
          title={
            <Space size={4}>
              {t('pricing.formula')}
              <Tooltip title={t('pricing.ratioExplain')}>
                <QuestionCircleOutlined aria-label={t('pricing.ratioHelp')} />
              </Tooltip>
            </Space>
          }
        />
        <DataTable<PricingModel>
          tableId="pricing"
          queryKey={pricingKeys.table(dataUpdatedAt, search)}
          fetchPage={async (page, pageSize) => ({
            items: models.slice((page - 1) * pageSize, page * pageSize),
            page,
            page_size: pageSize,
            total: models.length,
          })}
          columns={columns}
          rowKey="model_name"
          rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(String)), preserveSelectedRowKeys: true }}
          toolbar={
            <Flex gap={8} wrap>
              <Input
                allowClear
                prefix={<SearchOutlined />}
                placeholder={t('pricing.search')}
                aria-label={t('pricing.search')}
                value={search}
                onChange={(event) => setSearch(event.target.value)}
                style={{ maxWidth: 320 }}
              />
              <Button icon={<CopyOutlined />} disabled={selected.length === 0} onClick={() => void copyText(selected.join(','))}>
                {t('pricing.copySelected', { count: selected.length })}
              </Button>
            </Flex>
          }
        />
      </Flex>
    </Card>
  );
}
