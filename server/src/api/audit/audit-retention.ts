import { retentionJob } from '../../cache/daily-retention.js';
import { pruneAuditBefore } from '../../audit/chain.js';

/**
 * Audit retention (AuditLogRetentionDays > 0), on the same daily schedule and lease as log retention
 * (cache/daily-retention.ts). Entries older than that many days go from the oldest end, and the
 * chain's anchor moves to the last removed entry (audit/chain.ts), so what is kept still verifies.
 */
const auditRetention = retentionJob({
  key: 'audit-retention',
  daysOption: 'AuditLogRetentionDays',
  label: 'audit retention',
  prune: (ctx, before) => pruneAuditBefore(ctx.storage, before),
});

export const runAuditRetention = auditRetention.run;
export const startAuditRetention = auditRetention.start;
