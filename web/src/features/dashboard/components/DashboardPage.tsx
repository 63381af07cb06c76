import { Button, Card, Col, DatePicker, Flex, Form, Input, Result, Row, Segmented, Statistic, Typography } from 'antd';
import dayjs, { type Dayjs } from 'dayjs';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatTokenCount } from '../../../components/token-count';
import { formatDateTime, renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import { isAdmin as isAdminUser, useCurrentUser } from '../../../lib/user-store';
import { useQuotaData } from '../api/get-quota-data';
import type { DataQuery } from '../api/keys';
import { ModelChart } from './ModelChart';
import { granularities, isGranularity, seriesOf, totalsOf, type Granularity } from './series';

interface FilterValues {
  range: [Dayjs | null, Dayjs | null] | null;
  username?: string;
}

/** Data dashboard (/detail): quota, requests and tokens by model over time. */
export function DashboardPage() {
  const { t } = useTranslation();
  const isAdmin = isAdminUser(useCurrentUser());
  const { data: status = null } = useStatus();
  const [chosen, setGranularity] = useState<Granularity | null>(null);
  const fallback = status?.data_export_default_time;
  const granularity: Granularity = chosen ?? (isGranularity(fallback) ? fallback : 'hour');
  const [query, setQuery] = useState<DataQuery>(() => ({
    start_timestamp: dayjs().subtract(7, 'day').startOf('day').unix(),
    end_timestamp: dayjs().add(1, 'hour').unix(),
    username: '',
  }));
  const { data: quotaData, isFetching } = useQuotaData(query, isAdmin);
  const buckets = useMemo(() => quotaData?.buckets ?? [], [quotaData]);
  const charts = useMemo(
    () => ({
      quota: seriesOf(buckets, 'quota', granularity),
      count: seriesOf(buckets, 'count', granularity),
      tokens: seriesOf(buckets, 'token_used', granularity),
    }),
    [buckets, granularity],
  );
  const totals = totalsOf(buckets);
  const quotaText = (value: number) => renderQuota(value, status);
  if (status && !status.enable_data_export)
    return (
      <Card>
        <Result status="info" title={t('dashboard.disabled')} />
      </Card>
    );
  const search = (values: FilterValues) =>
    setQuery({
      start_timestamp: values.range?.[0]?.unix() ?? 0,
      end_timestamp: values.range?.[1]?.unix() ?? 0,
      username: (values.username ?? '').trim(),
    });

  return (
    <Flex vertical gap={16}>
      <Card>
        <Typography.Title level={4} style={{ marginTop: 0 }}>
          {t('dashboard.title')}
        </Typography.Title>
        {quotaData?.aggregation_interval_minutes !== undefined && (
          <Typography.Paragraph type="secondary" data-testid="dashboard-freshness">
            {quotaData.aggregated_at
              ? t('dashboard.aggregatedAt', {
                  time: formatDateTime(quotaData.aggregated_at),
                  minutes: quotaData.aggregation_interval_minutes,
                })
              : t('dashboard.notAggregated', { minutes: quotaData.aggregation_interval_minutes })}
          </Typography.Paragraph>
        )}
        <Form
          layout="inline"
          style={{ rowGap: 8 }}
          initialValues={{ range: [dayjs.unix(query.start_timestamp), dayjs.unix(query.end_timestamp)] }}
          onFinish={search}
        >
          <Form.Item name="range" label={t('dashboard.timeRange')}>
            <DatePicker.RangePicker showTime allowEmpty={[true, true]} />
          </Form.Item>
          {isAdmin && (
            <Form.Item name="username" label={t('dashboard.username')}>
              <Input allowClear placeholder={t('dashboard.allUsers')} style={{ width: 160 }} />
            </Form.Item>
          )}
          <Form.Item label={t('dashboard.granularity')}>
            <Segmented<Granularity>
              value={granularity}
              onChange={setGranularity}
              options={granularities.map((value) => ({ value, label: t(`dashboard.granularities.${value}`) }))}
            />
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit" loading={isFetching}>
              {t('common.search')}
            </Button>
          </Form.Item>
        </Form>
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} md={8}>
          <Card size="small">
            <Statistic title={t('dashboard.totalQuota')} value={quotaText(totals.quota)} />
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card size="small">
            <Statistic title={t('dashboard.totalRequests')} value={totals.count} />
          </Card>
        </Col>
        <Col xs={24} md={8}>
          <Card size="small">
            <Statistic title={t('dashboard.totalTokens')} value={formatTokenCount(totals.tokens)} />
          </Card>
        </Col>
      </Row>
      <ModelChart title={t('dashboard.quotaChart')} {...charts.quota} format={quotaText} emptyText={t('dashboard.empty')} />
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={12}>
          <ModelChart
            title={t('dashboard.requestChart')}
            {...charts.count}
            format={(value) => String(value)}
            emptyText={t('dashboard.empty')}
          />
        </Col>
        <Col xs={24} lg={12}>
          <ModelChart title={t('dashboard.tokenChart')} {...charts.tokens} format={formatTokenCount} emptyText={t('dashboard.empty')} />
        </Col>
      </Row>
    </Flex>
  );
}
