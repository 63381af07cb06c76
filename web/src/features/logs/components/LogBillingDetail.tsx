import { Descriptions, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatTokenCount } from '../../../components/token-count';
import { renderQuota } from '../../../lib/format';
import { useStatus } from '../../../lib/status';
import type { LogEntry } from '../api/get-logs';
import { billingSourceColor, durationColor, firstTokenColor, parseOther } from './log-detail';

/** Billing detail of a consumption row: ratios, cache tokens, timings and, for admins, the retry chain. */
export function LogBillingDetail({ log, isAdmin }: { log: LogEntry; isAdmin: boolean }) {
  const { t } = useTranslation();
  const { data: status = null } = useStatus();
  const other = parseOther(log.other);
  const isPerCall = (other.model_price ?? 0) > 0;
  const frt = (other.frt ?? 0) / 1000;
  const chain = other.admin_info?.use_channel ?? [];
  const items = [
    isPerCall
      ? { key: 'price', label: t('logs.modelPrice'), children: `$${other.model_price}` }
      : { key: 'ratio', label: t('logs.modelRatio'), children: other.model_ratio ?? '-' },
    { key: 'group', label: t('logs.groupRatio'), children: other.group_ratio ?? '-' },
    other.user_group_ratio !== undefined &&
      other.user_group_ratio >= 0 && { key: 'userGroup', label: t('logs.userGroupRatio'), children: other.user_group_ratio },
    other.auto_group
      ? { key: 'autoGroup', label: t('logs.autoGroup'), children: <Tag color="blue">auto → {other.auto_group}</Tag> }
      : false,
    !isPerCall && { key: 'completion', label: t('logs.completionRatio'), children: other.completion_ratio ?? '-' },
    !isPerCall && { key: 'cacheRatio', label: t('logs.cacheRatio'), children: other.cache_ratio ?? '-' },
    !isPerCall && { key: 'cacheTokens', label: t('logs.cacheTokens'), children: formatTokenCount(other.cache_tokens ?? 0) },
    (other.cache_creation_tokens ?? 0) > 0 && {
      key: 'cacheCreation',
      label: t('logs.cacheCreation'),
      children: `${formatTokenCount(other.cache_creation_tokens ?? 0)} × ${other.cache_creation_ratio ?? 1}`,
    },
    other.billing_source
      ? {
          key: 'paidBy',
          label: t('logs.paidBy'),
          children: (
            <span data-testid="log-paid-by">
              <Tag color={billingSourceColor[other.billing_source]}>{t(`logs.sources.${other.billing_source}`)}</Tag>
              {other.subscription_id !== undefined
                ? t('logs.paidSplit', {
                    id: other.subscription_id,
                    subscription: renderQuota(other.subscription_quota ?? 0, status, 6),
                    wallet: renderQuota(other.wallet_quota ?? 0, status, 6),
                  })
                : null}
            </span>
          ),
        }
      : false,
    {
      key: 'useTime',
      label: t('logs.useTime'),
      children: <Tag color={durationColor(log.use_time)}>{t('logs.seconds', { value: log.use_time })}</Tag>,
    },
    !!log.is_stream && {
      key: 'frt',
      label: t('logs.firstToken'),
      children: <Tag color={firstTokenColor(frt)}>{t('logs.seconds', { value: frt.toFixed(2) })}</Tag>,
    },
    other.is_model_mapped && other.upstream_model_name
      ? { key: 'upstream', label: t('logs.upstreamModel'), children: other.upstream_model_name }
      : false,
    other.reasoning_effort ? { key: 'effort', label: t('logs.reasoningEffort'), children: other.reasoning_effort } : false,
    isAdmin && chain.length > 0 && { key: 'chain', label: t('logs.retryChain'), children: chain.map((id) => `#${id}`).join(' → ') },
  ].filter((item) => !!item) as { key: string; label: string; children: React.ReactNode }[];
  const formula = isPerCall
    ? t('logs.formulaPerCall', { price: other.model_price, group: other.group_ratio ?? 1 })
    : t('logs.formulaPerToken', {
        prompt: log.prompt_tokens,
        completion: log.completion_tokens,
        ratio: other.model_ratio ?? 0,
        completionRatio: other.completion_ratio ?? 1,
        group: other.group_ratio ?? 1,
      });
  return (
    <div data-testid={`log-detail-${log.id}`}>
      <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 3 }} items={items} bordered />
      <Typography.Paragraph type="secondary" style={{ margin: '8px 0 0' }}>
        {formula}
      </Typography.Paragraph>
    </div>
  );
}
