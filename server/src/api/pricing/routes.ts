import { doc } from '../openapi.js';
import { noData, pricingBeside, pricingListSchema } from '@modelgate/shared';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import type { RouteDeps } from '../route-deps.js';
import { findPricing } from './find-pricing.js';
import { resetModelRatios } from './reset-model-ratios.js';

/** GET /api/pricing (public) and POST /api/option/rest_model_ratio (root). */
export function registerPricingRoutes(api: FastifyInstance, { ctx, guards, relay }: RouteDeps): void {
  // Public; a signed-in viewer (session or access token) gets availability for their own groups.
  api.get(
    '/pricing',
    {
      preHandler: guards.viewer,
      schema: doc('pricing', 'list models with prices and availability', { data: pricingListSchema, beside: pricingBeside }),
    },
    async (request) => {
      return { success: true, message: '', ...findPricing(ctx, relay.catalogue, request.auth, requestLanguage(request)) };
    },
  );
  api.post(
    '/option/rest_model_ratio',
    { preHandler: guards.root, schema: doc('pricing', 'reset model ratios', { data: noData }) },
    async () => {
      await resetModelRatios(ctx);
      return ok(null, '重置成功');
    },
  );
}
