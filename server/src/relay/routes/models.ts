import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { RelayError, shownName } from '../errors.js';
import { authenticateToken, type RelayCaller } from '../pipeline/authenticate.js';
import type { RelayState } from '../state.js';
import { modelsOfCaller } from '../routing/auto-group.js';

/** Models the caller may use: served in its group, within the token's model limits. */
export function modelsFor(relay: RelayState, caller: RelayCaller): string[] {
  const limits = caller.token?.modelLimits;
  return modelsOfCaller(relay, caller)
    .filter((model) => !limits || limits.has(model))
    .sort();
}

const modelObject = (id: string, created: number) => ({ id, object: 'model', created, owned_by: 'modelgate' });

/** GET /v1/models, /v1/models/:model and the OpenAI dashboard billing endpoints. */
export function registerModelAndBillingRoutes(app: FastifyInstance, ctx: AppContext, relay: RelayState): void {
  app.get('/v1/models', async (request) => {
    const caller = await authenticateToken(ctx, relay, request);
    return { object: 'list', data: modelsFor(relay, caller).map((id) => modelObject(id, ctx.startTime)) };
  });
  app.get<{ Params: { model: string } }>('/v1/models/:model', async (request) => {
    const caller = await authenticateToken(ctx, relay, request);
    const model = request.params.model;
    if (!modelsFor(relay, caller).includes(model)) throw new RelayError(404, 'model_not_found', `模型 ${shownName(model)} 不存在`);
    return modelObject(model, ctx.startTime);
  });

  const toAmount = (quota: number) => (ctx.options.bool('DisplayInCurrencyEnabled') ? quota / ctx.options.number('QuotaPerUnit') : quota);
  for (const prefix of ['', '/v1']) {
    app.get(`${prefix}/dashboard/billing/subscription`, async (request) => {
      const { user, token } = await authenticateToken(ctx, relay, request);
      const userLeft = user.quota - user.pendingQuota;
      const quota =
        token && !token.isUnlimited
          ? token.remainQuota - token.pendingQuota + token.usedQuota + token.pendingQuota
          : userLeft + user.usedQuota + user.pendingQuota;
      const amount = toAmount(quota);
      return {
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: amount,
        hard_limit_usd: amount,
        system_hard_limit_usd: amount,
        access_until: token && token.expiredTime > 0 ? token.expiredTime : 0,
      };
    });
    app.get(`${prefix}/dashboard/billing/usage`, async (request) => {
      const { user, token } = await authenticateToken(ctx, relay, request);
      const used = token && !token.isUnlimited ? token.usedQuota + token.pendingQuota : user.usedQuota + user.pendingQuota;
      return { object: 'list', total_usage: toAmount(used) * 100 };
    });
  }
}
