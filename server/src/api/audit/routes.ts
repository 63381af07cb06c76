import type { FastifyInstance } from 'fastify';
import { auditPageSchema, auditVerdictSchema } from '@modelgate/shared';
import { verifyAuditChain } from '../../audit/chain.js';
import { ok } from '../../lib/envelope.js';
import { doc } from '../openapi.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { exportAuditEntries } from './export-audit.js';
import { findAuditEntries } from './find-audit.js';
import { auditExportQuery, auditQuery } from './schemas.js';

/** The audit trail, root only (docs/audit.md): a page with filters, the export, the chain check. */
export function registerAuditRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  const root = { preHandler: guards.root };
  api.get(
    '/audit',
    { ...root, schema: doc('audit', 'find audit entries', { querystring: auditQuery, data: auditPageSchema }) },
    async (request) => ok(await findAuditEntries(ctx, parseInput(auditQuery, request.query))),
  );
  // A file, not an envelope, when it succeeds (a refusal is the usual envelope).
  api.get(
    '/audit/export',
    {
      ...root,
      schema: doc('audit', 'export audit entries as a CSV or JSON Lines file', {
        querystring: auditExportQuery,
        produces: ['text/csv', 'application/x-ndjson'],
      }),
    },
    async (request, reply) => {
      const query = parseInput(auditExportQuery, request.query);
      const [type, extension] =
        query.format === 'csv' ? ['text/csv; charset=utf-8', 'csv'] : ['application/x-ndjson; charset=utf-8', 'jsonl'];
      return reply
        .type(type)
        .header('content-disposition', `attachment; filename="audit.${extension}"`)
        .send(exportAuditEntries(ctx, query));
    },
  );
  api.get(
    '/audit/verify',
    { ...root, schema: doc('audit', 'verify the hash chain of the audit trail', { data: auditVerdictSchema }) },
    async () => ok(await verifyAuditChain(ctx.storage)),
  );
}
