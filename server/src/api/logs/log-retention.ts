import { retentionJob } from '../../cache/daily-retention.js';
import { deleteLogsBefore } from './delete-logs.js';

/**
 * Log retention (LogRetentionDays > 0): the logs older than that many days are deleted in batches,
 * once a day across instances (cache/daily-retention.ts).
 */
const logRetention = retentionJob({
  key: 'log-retention',
  daysOption: 'LogRetentionDays',
  label: 'log retention',
  prune: deleteLogsBefore,
});

export const runLogRetention = logRetention.run;
export const startLogRetention = logRetention.start;
