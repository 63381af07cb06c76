import { Progress, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { formatDateTime } from '../../../lib/format';

/** Task times are epoch seconds; 0 means not yet. */
export const timeOf = (seconds: number): string => formatDateTime(seconds) || '-';

const statusColors: Record<string, string> = {
  SUCCESS: 'green',
  NOT_START: 'default',
  SUBMITTED: 'gold',
  IN_PROGRESS: 'blue',
  FAILURE: 'red',
  MODAL: 'orange',
  QUEUED: 'orange',
  UNKNOWN: 'default',
};

/** A status tag in the spec's colours; `label` is the translated name. */
export const statusTag = (status: string, label: string): ReactNode => <Tag color={statusColors[status] ?? 'default'}>{label}</Tag>;

/** Progress as a small circle when it is a number ("40%"), else as text. */
export function progressCell(progress: string): ReactNode {
  const value = Number.parseFloat(progress);
  if (!progress || !Number.isFinite(value)) return <Typography.Text type="secondary">{progress || '-'}</Typography.Text>;
  return <Progress type="circle" size={36} percent={Math.max(0, Math.min(100, Math.round(value)))} aria-label={progress} />;
}

/** Seconds from submit to finish: red above 60 s, else green; '-' while unfinished. */
export function durationCell(submit: number, finish: number): ReactNode {
  if (!submit || !finish || finish < submit) return '-';
  const seconds = finish - submit;
  return <Tag color={seconds > 60 ? 'red' : 'green'}>{`${seconds} s`}</Tag>;
}
