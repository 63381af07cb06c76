import type { FastifyInstance } from 'fastify';
import { tokenLogsSchema, tokenUsageBeside, tokenUsageSchema } from '@modelgate/shared';
import { ok } from '../../lib/envelope.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { doc } from '../openapi.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { findTokenByKey } from './find-token-by-key.js';
import { findTokenLogs } from './find-token-logs.js';
import { tokenUsageOf } from './get-token-usage.js';
import { tokenLogQuery } from './schemas.js';

/**
 * Lookups a script makes with an API key alone (`Authorization: Bearer sk-…`), as new-api serves them:
 * the token's balance and usage, and its recent logs. No session; the key names its own token only.
 */
export function registerTokenUsageRoutes(api: FastifyInstance, { ctx }: RouteDeps): void {
  // Also answers /api/usage/token/ (new-api's path): the router ignores a trailing slash.
  api.get(
    '/usage/token',
    { schema: doc('token-usage', 'get the balance and usage of the calling token', { data: tokenUsageSchema, beside: tokenUsageBeside }) },
    async (request) => {
      const token = await findTokenByKey(ctx, request.headers.authorization);
      // new-api answers {code: true, message: 'ok', data}; `success` keeps the /api envelope too.
      return { ...ok(tokenUsageOf(token), 'ok'), code: true };
    },
  );
  api.get(
    '/log/token',
    { schema: doc('token-usage', 'find the logs of the calling token', { querystring: tokenLogQuery, data: tokenLogsSchema }) },
    async (request) => {
      const token = await findTokenByKey(ctx, request.headers.authorization);
      return ok(await findTokenLogs(ctx, token, parseInput(tokenLogQuery, request.query), requestLanguage(request)));
    },
  );
}
