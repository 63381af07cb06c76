import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { requestLanguage } from '../lib/i18n/index.js';
import { createDirectLane, type DirectLane } from './direct-lane.js';
import { clientStatus, RelayError, retryAfterHeaders, toRelayError } from './errors.js';
import { readTranscriptionForm, transcriptionJob } from './jobs/audio-transcription.js';
import { chatJob } from './jobs/chat.js';
import { embeddingsJob } from './jobs/inputs.js';
import { requireObject } from './jobs/json-body.js';
import { applyQueryOptions, jsonRoutes } from './json-routes.js';
import { registerInboundRoutes } from './inbound-routes.js';
import { registerModelAndBillingRoutes } from './models-routes.js';
import { registerMidjourneyRoutes } from './tasks/mj-routes.js';
import { registerSunoRoutes } from './tasks/suno-routes.js';
import { authenticateSession, authenticateToken, withChosenGroup } from './pipeline/authenticate.js';
import { authenticateFirst, callerOf, decorateRelayCaller } from './pipeline/authenticate-first.js';
import type { RelayBodies } from './direct-lane.js';
import { fastifyExchange } from './pipeline/exchange.js';
import { runRelay } from './pipeline/relay-call.js';
import { createRelayState, type RelayState } from './state.js';

function sendRelayError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (reply.sent || reply.raw.headersSent) return;
  const relayError = toRelayError(error, request.log, requestLanguage(request));
  const wait = retryAfterHeaders(relayError);
  if (wait) reply.headers(wait);
  return reply.code(clientStatus(relayError)).send(relayError.toBody());
}

/**
 * The /v1 relay, the dashboard billing endpoints and the /pg playground. Returns the direct lane
 * (direct-lane.ts) the HTTP server runs before Fastify for JSON calls of the OpenAI routes, and the
 * relay's state, which the server exposes only through relay/facade.ts (and to tests).
 */
export async function registerRelay(app: FastifyInstance, ctx: AppContext, bodies: RelayBodies): Promise<{ serve: DirectLane; relay: RelayState }> {
  const relay: RelayState = await createRelayState(ctx, app.log);
  decorateRelayCaller(app);
  const byToken = authenticateFirst((request) => authenticateToken(ctx, relay, request));
  const lane = createDirectLane(ctx, relay, app.log, bodies);
  app.addHook('preClose', (done) => {
    lane.close();
    done();
  });
  await (await import('./realtime/routes.js')).registerRealtimeRoute(app, ctx, relay); // GET /v1/realtime (WebSocket), docs/billing.md Realtime
  await app.register(async (scope) => {
    scope.setErrorHandler(sendRelayError);
    // While this process is overloaded, new calls are refused: 503 + Retry-After (lib/overload-guard.ts).
    scope.addHook('onRequest', (_request, _reply, done) => done(ctx.overload.refusal() ?? undefined));
    // A multipart body sent to a JSON route reaches its handler without a body, as it did when
    // @fastify/multipart covered the whole scope; the plugin itself (three async hooks per request)
    // is only on the audio routes below.
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
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
    registerModelAndBillingRoutes(scope, ctx, relay);
    await registerSunoRoutes(scope, ctx, relay);
    await registerMidjourneyRoutes(scope, ctx, relay);
    await registerInboundRoutes(scope, ctx, relay, byToken);
  });
  return { serve: lane.serve, relay };
}
