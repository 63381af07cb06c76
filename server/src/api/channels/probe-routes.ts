import { doc } from '../openapi.js';
import type { FastifyInstance } from 'fastify';
import {
  balancesUpdatedSchema,
  channelBalanceBeside,
  channelModelNamesSchema,
  channelTestBeside,
  fetchUpstreamModelsSchema,
  idParam,
  noData,
} from '@modelgate/shared';
import { z } from 'zod';
import { fail, ok } from '../../lib/envelope.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { fetchChannelModels, fetchUpstreamModels } from './probe/fetch-models.js';
import { testAllChannels, testChannel } from './probe/test-channel.js';
import { updateAllBalances, updateChannelBalance } from './probe/update-balance.js';

const idParams = z.object({ id: idParam() });
const testQuery = z.object({ model: z.string().max(255).optional() });

/** Channel probes (admin): test, update_balance, fetch_models. */
export function registerChannelProbeRoutes(api: FastifyInstance, { ctx, guards, relay }: RouteDeps): void {
  const admin = { preHandler: guards.admin };
  api.get(
    '/channel/test',
    { ...admin, schema: doc('channels', 'test every channel (in the background)', { data: noData }) },
    async (request) => {
      const started = testAllChannels(ctx, relay, (error) => request.log.warn({ err: error }, 'channel test failed'));
      return ok(null, started ? '已开始测试所有渠道，请稍后刷新查看结果' : '测试正在进行中');
    },
  );
  api.get(
    '/channel/test/:id',
    {
      ...admin,
      schema: doc('channels', 'test one channel', { params: idParams, querystring: testQuery, data: noData, beside: channelTestBeside }),
    },
    async (request) => {
      const { id } = parseInput(idParams, request.params);
      const { model } = parseInput(testQuery, request.query);
      const result = await testChannel(ctx, relay, id, model);
      // As new-api answers it: the seconds the test took beside the result, passed or failed.
      return result.success ? { ...ok(null), time: result.time } : { ...fail(result.message), time: result.time };
    },
  );
  api.get(
    '/channel/update_balance',
    { ...admin, schema: doc('channels', 'update all balances', { data: balancesUpdatedSchema }) },
    async () => ok({ updated: await updateAllBalances(ctx, relay) }),
  );
  api.get(
    '/channel/update_balance/:id',
    { ...admin, schema: doc('channels', 'update channel balance', { params: idParams, data: noData, beside: channelBalanceBeside }) },
    async (request) => {
      const balance = await updateChannelBalance(ctx, relay, parseInput(idParams, request.params).id);
      return { ...ok(null), balance };
    },
  );
  api.get(
    '/channel/fetch_models/:id',
    { ...admin, schema: doc('channels', 'fetch channel models', { params: idParams, data: channelModelNamesSchema }) },
    async (request) => ok(await fetchChannelModels(ctx, relay, parseInput(idParams, request.params).id)),
  );
  api.post(
    '/channel/fetch_models',
    { ...admin, schema: doc('channels', 'fetch upstream models', { body: fetchUpstreamModelsSchema, data: channelModelNamesSchema }) },
    async (request) => {
      const body = parseInput(fetchUpstreamModelsSchema, request.body);
      return ok(await fetchUpstreamModels(relay, body.type, body.base_url, body.key, body.other));
    },
  );
}
