import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.js';
import { RelayError } from '../errors.js';
import { readTranscriptionForm, transcriptionJob } from '../jobs/audio-transcription.js';
import { imageEditJob, imageFormLimits, readImageForm } from '../jobs/image-edits.js';
import { chatJob } from '../jobs/chat.js';
import { embeddingsJob } from '../jobs/inputs.js';
import { requireObject } from '../jobs/json-body.js';
import { authenticateSession, withChosenGroup } from '../pipeline/authenticate.js';
import { authenticateFirst, callerOf } from '../pipeline/authenticate-first.js';
import { fastifyExchange } from '../pipeline/exchange.js';
import { runRelay } from '../pipeline/relay-call.js';
import type { RelayState } from '../state.js';
import { applyQueryOptions, jsonRoutes } from './json-routes.js';

/**
 * The OpenAI surface on Fastify: the JSON routes (also served by the direct lane before Fastify),
 * the audio transcriptions and translations and the image edits and variations (multipart), and the
 * console's playground (/pg, by session).
 */
export async function registerOpenAiRoutes(
  scope: FastifyInstance,
  ctx: AppContext,
  relay: RelayState,
  byToken: onRequestAsyncHookHandler,
): Promise<void> {
  const bodyLimit = ctx.config.maxRequestBodyBytes;

  for (const [url, build] of [...jsonRoutes, ['/v1/engines/:model/embeddings', embeddingsJob] as const]) {
    scope.post(url, { bodyLimit, onRequest: byToken }, async (request, reply) => {
      const caller = callerOf(request);
      const job = build(requireObject(request.body));
      applyQueryOptions(job, (request.query as Record<string, unknown> | undefined)?.['api-version']);
      await runRelay(ctx, relay, fastifyExchange(request, reply), caller, job);
      return reply;
    });
  }
  await scope.register(async (audio) => {
    audio.removeContentTypeParser('multipart/form-data');
    await audio.register(fastifyMultipart, { limits: { fileSize: ctx.config.maxRequestBodyBytes, files: 1, fields: 50 } });
    for (const endpoint of ['transcriptions', 'translations'] as const) {
      audio.post(`/v1/audio/${endpoint}`, { bodyLimit, onRequest: byToken }, async (request, reply) => {
        const caller = callerOf(request);
        if (!request.isMultipart()) throw new RelayError(400, 'invalid_request', '请求必须是 multipart/form-data');
        const { fields, file } = await readTranscriptionForm(() => request.parts());
        await runRelay(ctx, relay, fastifyExchange(request, reply), caller, transcriptionJob(endpoint, fields, file));
        return reply;
      });
    }
  });
  await scope.register(async (images) => {
    images.removeContentTypeParser('multipart/form-data');
    await images.register(fastifyMultipart, { limits: { ...imageFormLimits, fileSize: bodyLimit } });
    for (const kind of ['edits', 'variations'] as const) {
      images.post(`/v1/images/${kind}`, { bodyLimit, onRequest: byToken }, async (request, reply) => {
        const caller = callerOf(request);
        if (!request.isMultipart()) throw new RelayError(400, 'invalid_request', '请求必须是 multipart/form-data');
        const form = await readImageForm(() => request.parts(), bodyLimit);
        const job = imageEditJob(kind, form);
        applyQueryOptions(job, (request.query as Record<string, unknown> | undefined)?.['api-version']);
        await runRelay(ctx, relay, fastifyExchange(request, reply), caller, job);
        return reply;
      });
    }
  });
  // The playground reads the session cookie: @fastify/cookie (its onRequest/onSend hooks) only here.
  await scope.register(async (playground) => {
    await playground.register(fastifyCookie);
    const bySession = authenticateFirst((request) => authenticateSession(ctx, relay, request));
    playground.post('/pg/chat/completions', { bodyLimit, onRequest: bySession }, async (request, reply) => {
      const body = requireObject(request.body);
      const caller = withChosenGroup(ctx, callerOf(request), body.group);
      const { group: _group, ...rest } = body;
      await runRelay(ctx, relay, fastifyExchange(request, reply), caller, chatJob(rest));
      return reply;
    });
  });
}
