import type { AuditVerdict } from '@modelgate/shared';
import { http } from '../../../lib/http';

export type { AuditVerdict };

/** GET /api/audit/verify: the hash chain checked from the oldest kept entry to the newest (on demand). */
export const verifyAudit = () => http.get<AuditVerdict>('/api/audit/verify');
