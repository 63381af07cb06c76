import { ChannelStatus, channelOtherInfoSchema, parseStoredJson } from '@modelgate/shared';
import { Tag, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '../../../lib/format';

const parseOtherInfo = (text: string | undefined) => parseStoredJson(channelOtherInfoSchema, text);

/** Seconds with two decimals, three below 0.1 s so a fast answer does not read 0.00. */
export const formatSeconds = (seconds: number): string => seconds.toFixed(seconds > 0 && seconds < 0.1 ? 3 : 2);

/** Status 1 enabled, 2 disabled manually, 3 auto-disabled with the reason and time from other_info. */
export function ChannelStatusTag({ status, otherInfo }: { status: number; otherInfo?: string }) {
  const { t } = useTranslation();
  if (status === ChannelStatus.enabled) return <Tag color="green">{t('channels.status.enabled')}</Tag>;
  if (status === ChannelStatus.manuallyDisabled) return <Tag color="red">{t('channels.status.disabled')}</Tag>;
  if (status === ChannelStatus.autoDisabled) {
    const info = parseOtherInfo(otherInfo);
    const tip = (
      <div>
        <div>{t('channels.status.reason', { reason: info.status_reason || t('channels.none') })}</div>
        <div>{t('channels.status.time', { time: formatDateTime(info.status_time) || t('channels.none') })}</div>
      </div>
    );
    return (
      <Tooltip title={tip}>
        <Tag color="gold">{t('channels.status.autoDisabled')}</Tag>
      </Tooltip>
    );
  }
  return <Tag>{t('channels.status.unknown')}</Tag>;
}

/** Response-time colours: 0 untested, up to 1 s green, up to 3 s lime, up to 5 s yellow, above red. */
export function responseTimeColor(milliseconds: number): string {
  if (milliseconds <= 0) return 'default';
  if (milliseconds <= 1000) return 'green';
  if (milliseconds <= 3000) return 'lime';
  if (milliseconds <= 5000) return 'gold';
  return 'red';
}

export function ResponseTimeTag({ milliseconds, testTime }: { milliseconds: number; testTime?: number }) {
  const { t } = useTranslation();
  const label = milliseconds > 0 ? t('channels.seconds', { value: formatSeconds(milliseconds / 1000) }) : t('channels.untested');
  return (
    <Tooltip title={testTime ? t('channels.testedAt', { time: formatDateTime(testTime) }) : undefined}>
      <Tag color={responseTimeColor(milliseconds)} data-testid="response-time">
        {label}
      </Tag>
    </Tooltip>
  );
}
