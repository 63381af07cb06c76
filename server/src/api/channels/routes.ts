import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { listChannelTypes } from '../../relay/providers/registry.js';
import type { RouteDeps } from '../routes.js';
import { parseInput } from '../validate.js';
import { copyChannel } from './copy-channel.js';
import { createChannels } from './create-channel.js';
import { deleteChannel, deleteChannels, deleteDisabledChannels } from './delete-channels.js';
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

  api.get('/channel/', admin, async (request) => ok(await findChannels(ctx, parseInput(listChannelsQuery, request.query))));
  api.get('/channel/search', admin, async (request) =>
    ok(await searchChannels(ctx, parseInput(searchChannelsQuery, request.query))));
  api.get('/channel/models', admin, async () => ok(await listChannelModels(ctx)));
  api.get('/channel/models_enabled', admin, async () => ok(await listEnabledModels(ctx)));
  api.get('/channel/types', admin, async () => ok(listChannelTypes()));
  api.get('/channel/:id', admin, async (request) => ok(await getChannel(ctx, parseInput(channelIdParams, request.params).id)));
  // Keys leave the server only here: to the root, on an explicit reveal, never cached.
  api.post('/channel/:id/key', { preHandler: [critical, guards.root] }, async (request, reply) => {
    const revealed = await revealChannelKey(ctx, parseInput(channelIdParams, request.params).id);
    reply.header('cache-control', 'no-store');
    return ok(revealed, '获取成功');
  });

  api.post('/channel/', admin, async (request) =>
    ok(await createChannels(ctx, parseInput(createChannelSchema, request.body)), '渠道创建成功！'));
  api.put('/channel/', admin, async (request) =>
    ok(await updateChannel(ctx, parseInput(updateChannelSchema, request.body)), '渠道更新成功！'));
  api.delete('/channel/disabled', admin, async () => ok(await deleteDisabledChannels(ctx)));
  api.delete('/channel/:id', admin, async (request) => {
    await deleteChannel(ctx, parseInput(channelIdParams, request.params).id);
    return ok(null);
  });
  api.post('/channel/batch', admin, async (request) =>
    ok(await deleteChannels(ctx, parseInput(deleteChannelsSchema, request.body).ids)));
  api.post('/channel/batch/tag', admin, async (request) => {
    const { ids, tag } = parseInput(setChannelsTagSchema, request.body);
    return ok(await setChannelsTag(ctx, ids, tag));
  });
  api.put('/channel/tag', admin, async (request) => ok(await editChannelTag(ctx, parseInput(editChannelTagSchema, request.body))));
  api.post('/channel/tag/enabled', admin, async (request) =>
    ok(await setTagStatus(ctx, parseInput(channelTagSchema, request.body).tag, true)));
  api.post('/channel/tag/disabled', admin, async (request) =>
    ok(await setTagStatus(ctx, parseInput(channelTagSchema, request.body).tag, false)));
  api.post('/channel/fix', admin, async () => ok(await fixAbilities(ctx)));
  api.post('/channel/copy/:id', admin, async (request) => {
    const { id } = parseInput(channelIdParams, request.params);
    const { suffix, reset_balance } = parseInput(copyChannelQuery, request.query);
    return ok(await copyChannel(ctx, id, { suffix, isBalanceReset: reset_balance }));
  });
}
