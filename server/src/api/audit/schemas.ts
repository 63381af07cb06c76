import { defaultPageSize, maxPageSize, optionalQueryInt, pageParam, unixTimeMax } from '@modelgate/shared';
import { z } from 'zod';

const optionalText = (max: number) =>
  z
    .string()
    .max(max, { error: `不能超过 ${max} 个字符` })
    .optional()
    .transform((value) => value?.trim() || undefined);

/** Filters of the audit trail (GET /api/audit and its export): who, what, when; empty means no filter. */
const auditFilterFields = {
  user_id: optionalQueryInt('user_id'),
  username: optionalText(64),
  entity: optionalText(64),
  entity_id: optionalText(191),
  route: optionalText(191),
  action: optionalText(64),
  start_timestamp: optionalQueryInt('start_timestamp', unixTimeMax),
  end_timestamp: optionalQueryInt('end_timestamp', unixTimeMax),
};

export const auditQuery = z.object({
  p: pageParam(),
  page_size: z.coerce
    .number({ error: 'page_size 必须是数字' })
    .int({ error: 'page_size 必须是整数' })
    .min(1, { error: 'page_size 必须大于 0' })
    .max(maxPageSize, { error: `page_size 不能超过 ${maxPageSize}` })
    .optional()
    .transform((value) => value ?? defaultPageSize),
  ...auditFilterFields,
});

export const auditExportQuery = z.object({
  format: z.enum(['csv', 'jsonl'], { error: 'format 必须是 csv 或 jsonl' }),
  ...auditFilterFields,
});

export type AuditFilters = Omit<z.infer<typeof auditQuery>, 'p' | 'page_size'>;
export type AuditQuery = z.infer<typeof auditQuery>;
export type AuditExportQuery = z.infer<typeof auditExportQuery>;
