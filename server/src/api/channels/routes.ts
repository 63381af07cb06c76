import { doc } from '../openapi.js';
import type { FastifyInstance } from 'fastify';
import {
  channelCountSchema,
  channelKeySchema,
  channelModelNamesSchema,
  channelModelsSchema,
  channelPageSchema,
  channelSchema,
  channelTypeSchema,
  copiedChannelSchema,
  createdChannelsSchema,
  noData,
  updatedChannelSchema,
} from '@modelgate/shared';
import { z } from 'zod';
import { ok } from '../../lib/envelope.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { authOf } from '../auth/guards.js';
import { isRootRole } from '../auth/roles.js';
import { copyChannel } from './copy-channel.js';
import { createChannels } from './create-channel.js';
import { deleteChannel, deleteChannels, deleteDisabledChannels } from './delete-channels.js';
import { findChannelTypes } from './find-channel-types.js';
import { findChannels, searchChannels } from './find-channels.js';
import { fixAbilities } from './fix-abilities.js';
import { getChannel } from './get-channel.js';
import { listChannelModels, listEnabledModels } from './list-channel-models.js';
import { revealChannelKey } from './reveal-channel-key.js';
import {
  channelIdParams,
  channelTagSchema,
  copyChannelQuery,
  createChannelSchema,
  deleteChannelsSchema,
  editChannelTagSchema,
  listChannelsQuery,
  searchChannelsQuery,
  setChannelsTagSchema,
  updateChannelSchema,
} from './schemas.js';
import { editChannelTag, setChannelsTag, setTagStatus } from './tag-channels.js';
import { updateChannel } from './update-channel.js';

/** Channel management (admin). Probe calls (test, update_balance, fetch_models) live in probe-routes.ts. */
export function registerChannelRoutes(api: FastifyInstance, { ctx, guards, critical }: RouteDeps): void {
  const admin = { preHandler: guards.admin };

  api.get(
    '/channel/',
    { ...admin, schema: doc('channels', 'find channels', { querystring: listChannelsQuery, data: channelPageSchema }) },
    async (request) => ok(await findChannels(ctx, parseInput(listChannelsQuery, request.query), requestLanguage(request))),
  );
  api.get(
    '/channel/search',
    { ...admin, schema: doc('channels', 'search channels', { querystring: searchChannelsQuery, data: channelPageSchema }) },
    async (request) => ok(await searchChannels(ctx, parseInput(searchChannelsQuery, request.query), requestLanguage(request))),
  );
  api.get('/channel/models', { ...admin, schema: doc('channels', 'list channel models', { data: channelModelsSchema }) }, async () =>
    ok(await listChannelModels(ctx)),
  );
  api.get(
    '/channel/models_enabled',
    { ...admin, schema: doc('channels', 'list enabled models', { data: channelModelNamesSchema }) },
    async () => ok(await listEnabledModels(ctx)),
  );
  api.get(
    '/channel/types',
    { ...admin, schema: doc('channels', 'list channel types and their form metadata', { data: z.array(channelTypeSchema) }) },
    async (request) => ok(findChannelTypes(requestLanguage(request))),
  );
  api.get(
    '/channel/:id',
    { ...admin, schema: doc('channels', 'get channel', { params: channelIdParams, data: channelSchema }) },
    async (request) => ok(await getChannel(ctx, parseInput(channelIdParams, request.params).id)),
  );
  // Keys leave the server only here: to the root, on an explicit reveal, never cached.
  api.post(
    '/channel/:id/key',
    {
      preHandler: [critical, guards.root],
      schema: doc('channels', 'reveal channel key', { params: channelIdParams, data: channelKeySchema }),
    },
    async (request, reply) => {
      const revealed = await revealChannelKey(ctx, parseInput(channelIdParams, request.params).id);
      reply.header('cache-control', 'no-store');
      return ok(revealed, '获取成功');
    },
  );

  api.post(
    '/channel/',
    { ...admin, schema: doc('channels', 'create channels', { body: createChannelSchema, data: createdChannelsSchema }) },
    async (request) => ok(await createChannels(ctx, parseInput(createChannelSchema, request.body)), '渠道创建成功！'),
  );
  api.put(
    '/channel/',
    { ...admin, schema: doc('channels', 'update channel', { body: updateChannelSchema, data: updatedChannelSchema }) },
    async (request) =>
      ok(
        await updateChannel(ctx, parseInput(updateChannelSchema, request.body), { isRoot: isRootRole(authOf(request).role) }),
        '渠道更新成功！',
      ),
  );
  api.delete(
    '/channel/disabled',
    { ...admin, schema: doc('channels', 'delete disabled channels', { data: channelCountSchema }) },
    async () => ok(await deleteDisabledChannels(ctx)),
  );
  api.delete(
    '/channel/:id',
    { ...admin, schema: doc('channels', 'delete channel', { params: channelIdParams, data: noData }) },
    async (request) => {
      await deleteChannel(ctx, parseInput(channelIdParams, request.params).id);
      return ok(null);
    },
  );
  api.post(
    '/channel/batch',
    { ...admin, schema: doc('channels', 'delete channels', { body: deleteChannelsSchema, data: channelCountSchema }) },
    async (request) => ok(await deleteChannels(ctx, parseInput(deleteChannelsSchema, request.body).ids)),
  );
  api.post(
    '/channel/batch/tag',
    { ...admin, schema: doc('channels', 'set channels tag', { body: setChannelsTagSchema, data: channelCountSchema }) },
    async (request) => {
      const { ids, tag } = parseInput(setChannelsTagSchema, request.body);
      return ok(await setChannelsTag(ctx, ids, tag));
    },
  );
  api.put(
    '/channel/tag',
    { ...admin, schema: doc('channels', 'edit channel tag', { body: editChannelTagSchema, data: channelCountSchema }) },
    async (request) => ok(await editChannelTag(ctx, parseInput(editChannelTagSchema, request.body))),
  );
  api.post(
    '/channel/tag/enabled',
    { ...admin, schema: doc('channels', 'set tag status', { body: channelTagSchema, data: channelCountSchema }) },
    async (request) => ok(await setTagStatus(ctx, parseInput(channelTagSchema, request.body).tag, true)),
  );
  api.post(
    '/channel/tag/disabled',
    { ...admin, schema: doc('channels', 'set tag status', { body: channelTagSchema, data: channelCountSchema }) },
    async (request) => ok(await setTagStatus(ctx, parseInput(channelTagSchema, request.body).tag, false)),
  );
  api.post('/channel/fix', { ...admin, schema: doc('channels', 'fix abilities', { data: channelCountSchema }) }, async () =>
    ok(await fixAbilities(ctx)),
  );
  api.post(
    '/channel/copy/:id',
    {
      ...admin,
      schema: doc('channels', 'copy channel', { params: channelIdParams, querystring: copyChannelQuery, data: copiedChannelSchema }),
    },
    async (request) => {
      const { id } = parseInput(channelIdParams, request.params);
      const { suffix, reset_balance } = parseInput(copyChannelQuery, request.query);
      return ok(await copyChannel(ctx, id, { suffix, isBalanceReset: reset_balance }));
    },
  );
}
