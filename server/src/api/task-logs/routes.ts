import { doc } from '../openapi.js';
import { drawingTaskSchema, musicTaskSchema, ownDrawingTaskSchema, ownMusicTaskSchema } from '@modelgate/shared';
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { ok } from '../../lib/envelope.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { authOf } from '../auth/guards.js';
import type { RouteDeps } from '../route-deps.js';
import { parseInput } from '../validate.js';
import { findDrawingTasks, findMusicTasks } from './find-task-logs.js';
import { drawingLogQuery, musicLogQuery, videoParams } from './schemas.js';
import { isAdminRole } from '../auth/roles.js';

/** Drawing (Midjourney) and music (Suno) task logs: every user's for admins, one's own for everybody. */
export function registerTaskLogRoutes(api: FastifyInstance, { ctx, guards, relay }: RouteDeps): void {
  const admin = { preHandler: guards.admin };
  const user = { preHandler: guards.user };
  const self = (request: Parameters<typeof authOf>[0]) => ({ isAdmin: false as const, userId: authOf(request).id });

  api.get(
    '/mj/',
    { ...admin, schema: doc('task-logs', 'find drawing tasks', { querystring: drawingLogQuery, data: z.array(drawingTaskSchema) }) },
    async (request) =>
      ok(await findDrawingTasks(ctx, { isAdmin: true }, parseInput(drawingLogQuery, request.query), requestLanguage(request))),
  );
  api.get(
    '/mj/self/',
    { ...user, schema: doc('task-logs', 'find own drawing tasks', { querystring: drawingLogQuery, data: z.array(ownDrawingTaskSchema) }) },
    async (request) => ok(await findDrawingTasks(ctx, self(request), parseInput(drawingLogQuery, request.query), requestLanguage(request))),
  );
  api.get(
    '/task/',
    { ...admin, schema: doc('task-logs', 'find music tasks', { querystring: musicLogQuery, data: z.array(musicTaskSchema) }) },
    async (request) => ok(await findMusicTasks(ctx, { isAdmin: true }, parseInput(musicLogQuery, request.query), requestLanguage(request))),
  );
  api.get(
    '/task/self',
    { ...user, schema: doc('task-logs', 'find own music tasks', { querystring: musicLogQuery, data: z.array(ownMusicTaskSchema) }) },
    async (request) => ok(await findMusicTasks(ctx, self(request), parseInput(musicLogQuery, request.query), requestLanguage(request))),
  );
  // A finished video, for the task log's preview: the viewer's own, any for an admin (the upstream's address stays on the server).
  api.get(
    '/task/video/:id/content',
    { ...user, schema: doc('task-logs', 'video content', { params: videoParams, produces: 'video/mp4' }) },
    async (request, reply) => {
      const viewer = authOf(request);
      const { id } = parseInput(videoParams, request.params);
      const content = await relay.videoContent(ctx, id, isAdminRole(viewer.role) ? null : viewer.id, request.headers.range);
      return reply.code(content.status).headers(content.headers).send(content.body);
    },
  );
}
