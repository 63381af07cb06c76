import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { requestLanguage } from '../../lib/i18n/index.js';
import { RelayError, relayErrors } from '../errors.js';
import { findGroupRatioInfo, unsetModelPricing } from '../billing/pricing.js';
import { resolveAutoGroup } from '../routing/auto-group.js';
import { estimateHold } from '../billing/quota.js';
import { authenticateToken, checkModelAllowed, type RelayCaller } from '../pipeline/authenticate.js';
import { recordFailedCall } from '../ledger/error-log.js';
import { checkModelRateLimit, releaseSuccessSlot } from '../pipeline/rate-limit.js';
import { observeFailed } from '../pipeline/call-metrics.js';
import { sendRelayError } from './send-error.js';
import type { RelayState } from '../state.js';
import { findRealtimePricing } from '../realtime/realtime-pricing.js';
import { quotaShortfall } from '../ledger/hold.js';
import { fundingRefusal } from '../ledger/funding-hold.js';
import { hasRealtimeChannel, runRealtimeSession, type ActiveSessions, type RealtimeRequest } from '../realtime/session.js';
import { keyFromSubprotocols, pickSubprotocol } from '../realtime/subprotocols.js';
import { countClientFrames } from '../realtime/frame-budget.js';
import type { BodyBudget } from '../../http/request-body.js';

const queryString = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim() : undefined);

/**
 * Checks everything the HTTP relay checks before dispatch (token, model limits, price, rate limit,
 * quota for the hold, a channel for group + model); a failure rejects the upgrade with the relay's
 * status and OpenAI error body.
 */
async function prepareRealtime(ctx: AppContext, relay: RelayState, request: FastifyRequest): Promise<RealtimeRequest> {
  const startedAt = Date.now();
  const keyFromProtocol = keyFromSubprotocols(request.headers['sec-websocket-protocol']);
  if (!request.headers.authorization && !request.headers['x-api-key'] && keyFromProtocol)
    request.headers.authorization = `Bearer ${keyFromProtocol}`;
  const requester = await authenticateToken(ctx, relay, request);
  const query = request.query as Record<string, unknown>;
  const model = queryString(query.model);
  try {
    return await checkRealtime(ctx, relay, request, requester, model, startedAt);
  } catch (error) {
    // The caller is known: a refused upgrade is a failed call for the error log (type 5, ErrorLogEnabled).
    recordFailedCall(ctx, relay, {
      caller: requester,
      model: model ?? '',
      error,
      trace: null,
      isStream: true,
      startedAt,
      requestPath: '/v1/realtime',
    });
    if (ctx.metrics.isEnabled)
      observeFailed(ctx, '/v1/realtime', model ?? '', error, startedAt, model ? findRealtimePricing(ctx.options, model).isKnown : false);
    throw error;
  }
}

async function checkRealtime(
  ctx: AppContext,
  relay: RelayState,
  request: FastifyRequest,
  requester: RelayCaller,
  model: string | undefined,
  startedAt: number,
): Promise<RealtimeRequest> {
  const query = request.query as Record<string, unknown>;
  if (!model) throw relayErrors.badRequest('缺少 model 参数', 'model_required');
  checkModelAllowed(requester, model);
  // An `auto` token: the first of its auto groups with a channel for the model.
  const caller = requester.pinnedChannelId === null ? resolveAutoGroup(relay, requester, model) : requester;
  if (!hasRealtimeChannel(relay, caller, model)) {
    if (caller.pinnedChannelId !== null)
      throw new RelayError(503, 'channel_not_found', `渠道 #${caller.pinnedChannelId} 不存在、已被禁用或不支持 Realtime`);
    throw relayErrors.noChannel(caller.group, model);
  }
  const found = findRealtimePricing(ctx.options, model);
  if (!found.isKnown && !ctx.options.bool('SelfUseModeEnabled') && !caller.user.acceptsUnsetModels) throw relayErrors.unpriced(model);
  const pricing = unsetModelPricing(ctx.options, found);
  const { groupRatio, userGroupRatio } = findGroupRatioInfo(ctx.options, caller.user.group, caller.group);
  const holdAmount = estimateHold(pricing, groupRatio, 0, 0, ctx.options.number('PreConsumedQuota'), ctx.options.number('QuotaPerUnit'));
  // A user with subscription funding is held by the session (the allowances are read there): only a
  // `subscription_only` user without a subscription is refused here, without a query.
  const shortfall = caller.user.funding === null ? quotaShortfall(caller, holdAmount) : fundingRefusal(caller);
  if (shortfall) throw shortfall;
  const beta = request.headers['openai-beta'];
  // Last, so nothing after it can fail: the slot is given back by the session when it is not billed.
  const successSlot = await checkModelRateLimit(ctx, caller.user.id);
  return {
    caller,
    model,
    pricing,
    groupRatio,
    userGroupRatio,
    holdAmount,
    successSlot,
    beta: typeof beta === 'string' ? beta : undefined,
    apiVersion: queryString(query['api-version']),
    startedAt,
    language: requestLanguage(request),
    headers: request.headers,
  };
}

/** GET /v1/realtime: the OpenAI Realtime WebSocket relayed to OpenAI (type 1) and Azure (type 3) channels. */
export async function registerRealtimeRoute(app: FastifyInstance, ctx: AppContext, relay: RelayState, budget: BodyBudget): Promise<void> {
  const active: ActiveSessions = new Set();
  const prepared = new WeakMap<FastifyRequest, RealtimeRequest>();
  await app.register(async (scope) => {
    await scope.register(fastifyWebsocket, {
      options: {
        perMessageDeflate: false,
        // A client message is at most what a request body may be (MAX_REQUEST_BODY_MB); past it ws closes with 1009.
        maxPayload: ctx.config.maxRequestBodyBytes,
        handleProtocols: (offered) => pickSubprotocol(offered),
      },
      errorHandler: (_error, socket) => socket.terminate(),
    });
    scope.setErrorHandler(sendRelayError);
    // While this process is overloaded, a new session is refused as a new call is: 503 + Retry-After (lib/overload-guard.ts).
    scope.addHook('onRequest', (_request, _reply, done) => done(ctx.overload.refusal() ?? undefined));
    // Shutdown bills every open session before the final write-behind flush.
    scope.addHook('preClose', (done) => {
      for (const session of [...active]) session.shutdown();
      done();
    });
    scope.get(
      '/v1/realtime',
      {
        websocket: true,
        preHandler: async (request) => {
          const realtime = await prepareRealtime(ctx, relay, request);
          prepared.set(request, realtime);
          // The handshake may still fail after admission (ws refuses it, or the client is gone) and then
          // no session starts: the success slot goes back once the connection closes without one.
          const giveBack = () => {
            if (prepared.delete(request)) releaseSuccessSlot(ctx, realtime.successSlot);
          };
          if (request.raw.socket.destroyed) giveBack();
          else request.raw.socket.once('close', giveBack);
        },
      },
      (socket, request) => {
        const realtime = prepared.get(request);
        prepared.delete(request);
        if (!realtime) return socket.close(1011, 'not prepared');
        countClientFrames(request.raw.socket, socket, budget, realtime.language);
        return runRealtimeSession(ctx, relay, socket, realtime, active);
      },
    );
  });
}
