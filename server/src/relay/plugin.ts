import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../api/context.js';
import { AppError } from '../lib/errors.js';
import { RelayError } from './errors.js';
import { transcriptionJob, type UploadedFile } from './jobs/audio-transcription.js';
import { chatJob, completionsJob } from './jobs/chat.js';
import { embeddingsJob, imagesJob, moderationsJob, rerankJob, speechJob } from './jobs/inputs.js';
import { requireObject, type JsonBody } from './jobs/json-body.js';
import { registerInboundRoutes } from './inbound-routes.js';
import { registerModelAndBillingRoutes } from './models-routes.js';
import { authenticateSession, authenticateToken } from './pipeline/authenticate.js';
import { runRelay, type RelayJob } from './pipeline/relay-call.js';
import { createRelayState, type RelayState } from './state.js';

/** Any error of a relay route as a RelayError (unknown errors are logged and become a 500). */
export function toRelayError(error: FastifyError | Error, request: FastifyRequest): RelayError {
  let relayError: RelayError;
  if (error instanceof RelayError) relayError = error;
  else if (error instanceof AppError) relayError = new RelayError(error.status, error.code, error.message);
  else {
    const status = (error as FastifyError).statusCode ?? 500;
    if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') relayError = new RelayError(413, 'payload_too_large', '请求体过大');
    else if (status >= 400 && status < 500) relayError = new RelayError(status, 'invalid_request', error.message || '请求无效');
    else {
      request.log.error({ err: error }, 'relay error');
      relayError = new RelayError(500, 'internal_error', '服务器内部错误，请联系管理员');
    }
  }
  return relayError;
}

function sendRelayError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (reply.sent || reply.raw.headersSent) return;
  const relayError = toRelayError(error, request);
  const status = relayError.status === 499 ? 400 : relayError.status;
  return reply.code(status).send(relayError.toBody());
}

type JobBuilder = (body: JsonBody) => RelayJob;

const jsonRoutes: Array<[string, JobBuilder]> = [
  ['/v1/chat/completions', chatJob],
  ['/v1/completions', completionsJob],
  ['/v1/embeddings', embeddingsJob],
  ['/v1/engines/:model/embeddings', embeddingsJob],
  ['/v1/moderations', moderationsJob],
  ['/v1/images/generations', imagesJob],
  ['/v1/audio/speech', speechJob],
  ['/v1/rerank', rerankJob],
];

async function readMultipart(request: FastifyRequest): Promise<{ fields: Record<string, string>; file: UploadedFile | null }> {
  const fields: Record<string, string> = {};
  let file: UploadedFile | null = null;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      const data = await part.toBuffer();
      if (!file) file = { fieldname: part.fieldname, filename: part.filename || 'audio', mimetype: part.mimetype, data };
    } else {
      fields[part.fieldname] = String(part.value);
    }
  }
  return { fields, file };
}

/** The /v1 relay, the dashboard billing endpoints and the /pg playground. */
export async function registerRelay(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const relay: RelayState = await createRelayState(ctx, (error, message) => app.log.error({ err: error }, message));
  ctx.relay = relay;
  await (await import('./realtime/routes.js')).registerRealtimeRoute(app, ctx, relay); // GET /v1/realtime (WebSocket), docs/billing.md Realtime
  await app.register(async (scope) => {
    scope.setErrorHandler(sendRelayError);
    // A multipart body sent to a JSON route reaches its handler without a body, as it did when
    // @fastify/multipart covered the whole scope; the plugin itself (three async hooks per request)
    // is only on the audio routes below.
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    const bodyLimit = ctx.config.maxRequestBodyBytes;

    for (const [url, build] of jsonRoutes) {
      scope.post(url, { bodyLimit }, async (request, reply) => {
        const caller = await authenticateToken(ctx, relay, request);
        const job = build(requireObject(request.body));
        const apiVersion = (request.query as Record<string, unknown> | undefined)?.['api-version'];
        if (typeof apiVersion === 'string' && apiVersion) job.requestOptions = { apiVersion };
        await runRelay(ctx, relay, request, reply, caller, job);
        return reply;
      });
    }
    await scope.register(async (audio) => {
      audio.removeContentTypeParser('multipart/form-data');
      await audio.register(fastifyMultipart, { limits: { fileSize: ctx.config.maxRequestBodyBytes, files: 1, fields: 50 } });
      for (const endpoint of ['transcriptions', 'translations'] as const) {
        audio.post(`/v1/audio/${endpoint}`, { bodyLimit }, async (request, reply) => {
          const caller = await authenticateToken(ctx, relay, request);
          if (!request.isMultipart()) throw new RelayError(400, 'invalid_request', '请求必须是 multipart/form-data');
          const { fields, file } = await readMultipart(request);
          await runRelay(ctx, relay, request, reply, caller, transcriptionJob(endpoint, fields, file));
          return reply;
        });
      }
    });
    // The playground reads the session cookie: @fastify/cookie (its onRequest/onSend hooks) only here.
    await scope.register(async (playground) => {
      await playground.register(fastifyCookie);
      playground.post('/pg/chat/completions', { bodyLimit }, async (request, reply) => {
        const body = requireObject(request.body);
        const caller = await authenticateSession(ctx, relay, request, body.group);
        const { group: _group, ...rest } = body;
        await runRelay(ctx, relay, request, reply, caller, chatJob(rest));
        return reply;
      });
    });
    registerModelAndBillingRoutes(scope, ctx, relay);
    await registerInboundRoutes(scope, ctx, relay);
  });
}
