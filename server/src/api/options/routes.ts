import { doc } from '../openapi.js';
import { noData, optionListSchema } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { forbidden, invalidInput } from '../../lib/errors.js';
import { ok } from '../../lib/envelope.js';
import { canManageOption, isOptionKey } from '../../options/registry.js';
import { authOf } from '../auth/guards.js';
import { isRootRole } from '../auth/roles.js';
import { hasAnyFactor, secondFactorsOf } from '../../lib/second-factors.js';

export const enrolYourselfFirstMessage = '请先为自己的账户启用两步验证或 Passkey';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { optionUpdateSchema } from './schemas.js';

/**
 * GET /api/option/ lists the non-secret options the caller may manage; PUT stores one (validated by
 * the registry). The root manages every option; an admin the operation, rate-limit, models and other
 * tabs' ones (canManageOption), and gets a 403 for the rest.
 */
export function registerOptionRoutes(api: FastifyInstance, { ctx, guards }: RouteDeps): void {
  const admin = { preHandler: guards.admin };
  api.get(
    '/option/',
    { ...admin, schema: doc('options', 'list options the caller may manage', { data: optionListSchema }) },
    async (request) => ok(ctx.options.listPublic(isRootRole(authOf(request).role))),
  );
  api.put(
    '/option/',
    { ...admin, schema: doc('options', 'update one option', { body: optionUpdateSchema, data: noData }) },
    async (request) => {
      const { key, value } = parseInput(optionUpdateSchema, request.body);
      const me = authOf(request);
      if (isOptionKey(key) && !canManageOption(key, isRootRole(me.role))) throw forbidden('无权修改此配置项，仅超级管理员可以修改');
      // Requiring a second factor of admins while the root has none would shut the root out of this page.
      if (key === 'TwoFactorRequiredForAdmins' && value === 'true' && !hasAnyFactor(await secondFactorsOf(ctx, me.id))) {
        throw invalidInput(enrolYourselfFirstMessage);
      }
      await ctx.options.set(key, value);
      return ok(null, '更新成功');
    },
  );
}
