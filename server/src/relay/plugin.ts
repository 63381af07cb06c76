import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { createDirectLane, type DirectLane } from './direct-lane.js';
import { sendRelayError } from './routes/send-error.js';
import { registerInboundRoutes } from './routes/inbound.js';
import { registerModelAndBillingRoutes } from './routes/models.js';
import { registerMidjourneyRoutes } from './routes/midjourney.js';
import { registerSunoRoutes } from './routes/suno.js';
import { registerOpenAiRoutes } from './routes/openai.js';
import { registerVideoRoutes } from './routes/videos.js';
import { authenticateToken } from './pipeline/authenticate.js';
import { authenticateFirst, decorateRelayCaller } from './pipeline/authenticate-first.js';
import type { RelayBodies } from './direct-lane.js';
import { createRelayState, type RelayState } from './state.js';

/**
 * The /v1 relay, the dashboard billing endpoints and the /pg playground. Returns the direct lane
 * (direct-lane.ts) the HTTP server runs before Fastify for JSON calls of the OpenAI routes, and the
 * relay's state, which the server exposes only through relay/facade.ts (and to tests).
 */
export async function registerRelay(
  app: FastifyInstance,
  ctx: AppContext,
  bodies: RelayBodies,
): Promise<{ serve: DirectLane; relay: RelayState }> {
  const relay: RelayState = await createRelayState(ctx, app.log);
  decorateRelayCaller(app);
  const byToken = authenticateFirst((request) => authenticateToken(ctx, relay, request));
  const lane = createDirectLane(ctx, relay, app.log, bodies);
  app.addHook('preClose', (done) => {
    lane.close();
    done();
  });
  await (await import('./routes/realtime.js')).registerRealtimeRoute(app, ctx, relay, bodies.budget); // GET /v1/realtime (WebSocket), docs/billing.md Realtime
  await app.register(async (scope) => {
    scope.setErrorHandler(sendRelayError);
    // While this process is overloaded, new calls are refused: 503 + Retry-After (lib/overload-guard.ts).
    scope.addHook('onRequest', (_request, _reply, done) => done(ctx.overload.refusal() ?? undefined));
    // A multipart body sent to a JSON route reaches its handler without a body, as it did when
    // @fastify/multipart covered the whole scope; the plugin itself (three async hooks per request)
    // is only on the audio routes below.
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    await registerOpenAiRoutes(scope, ctx, relay, byToken);
    await registerVideoRoutes(scope, ctx, relay, byToken);
    registerModelAndBillingRoutes(scope, ctx, relay);
    await registerSunoRoutes(scope, ctx, relay);
    await registerMidjourneyRoutes(scope, ctx, relay);
    await registerInboundRoutes(scope, ctx, relay, byToken);
  });
  return { serve: lane.serve, relay };
}
