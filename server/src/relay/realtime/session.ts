import type { IncomingHttpHeaders } from 'node:http';
import type WebSocket from 'ws';
import type { AppContext } from '../../context.js';
import { RelayError, UpstreamError, relayErrors } from '../errors.js';
import type { Language } from '../../lib/i18n/index.js';
import { releaseSuccessSlot, type SuccessSlot } from '../pipeline/rate-limit.js';
import type { RelayCaller } from '../pipeline/authenticate.js';
import type { RelayChannel } from '../routing/channel-index.js';
import { targetOf } from '../upstream/dispatch.js';
import { findGroupRatioInfo } from '../billing/pricing.js';
import { crossRetryGroups } from '../routing/auto-group.js';
import { admitToken, type Admission } from '../routing/admission.js';
import { freeLease, type Lease } from '../routing/concurrency.js';
import { newAttemptTrace, runAttempts, type AttemptTrace } from '../routing/attempt-loop.js';
import { recordFailedCall } from '../ledger/error-log.js';
import { exhaustedQuota, growHold, releaseHold, type Hold } from '../ledger/hold.js';
import { holdSession } from './session-hold.js';
import { GrowingFunding } from '../ledger/funding-grow.js';
import type { RelayState } from '../state.js';
import { RealtimeBridge } from './bridge.js';
import { stalledClientFactor } from '../stream/idle-timer.js';
import { computeRealtimeQuota, type RealtimePricing } from './realtime-pricing.js';
import { clampQuota } from '../billing/usage-count.js';
import { settleRealtimeSession } from './settle-session.js';
import { buildRealtimeRequest, connectUpstream, maxUpstreamMessageBytes, realtimeChannelTypes, type UpstreamFrames } from './upstream.js';
import { cachedTokensOf, emptyRealtimeUsage, inputTokensOf, outputTokensOf, readServerEvent } from './usage.js';
import { CallSpan } from '../tracing/call-span.js';
import { clientErrorFrame, errorEvent } from './error-frames.js';
import { modelLabel, observeFailed } from '../pipeline/call-metrics.js';

/** What the upgrade request established before the socket was accepted. */
export interface RealtimeRequest {
  caller: RelayCaller;
  model: string;
  pricing: RealtimePricing;
  groupRatio: number;
  /** GroupGroupRatio's special ratio for the caller, or -1. */
  userGroupRatio: number;
  holdAmount: number;
  /** The ModelRequestRateLimitSuccessCount slot taken at admission (given back when nothing is billed). */
  successSlot: SuccessSlot;
  beta?: string;
  apiVersion?: string;
  startedAt: number;
  /** The caller's language (Accept-Language of the upgrade request): the session's error events are told in it. */
  language: Language;
  /** The upgrade request's headers: a client's traceparent parents the session's span when tracing is on. */
  headers?: IncomingHttpHeaders;
}

/** Sessions in flight, so shutdown can bill them before the final flush. */
export type ActiveSessions = Set<{ shutdown(): void }>;

/** Close code when the gateway ends a session for quota, and when the upstream cannot be reached. */
const quotaCloseCode = 1008;
const upstreamFailureCloseCode = 1011;

/** Whether any channel could serve the session (checked before the upgrade is accepted). */
export function hasRealtimeChannel(relay: RelayState, caller: RelayCaller, model: string): boolean {
  if (caller.pinnedChannelId !== null) {
    const channel = relay.channels.findById(caller.pinnedChannelId);
    return channel !== null && realtimeChannelTypes.has(channel.type);
  }
  const excluded = new Set<number>();
  for (;;) {
    const channel = relay.channels.select(caller.group, model, excluded);
    if (!channel || realtimeChannelTypes.has(channel.type)) return channel !== null;
    excluded.add(channel.id);
  }
}

function internalError(relay: RelayState, error: unknown): RelayError {
  relay.log.error({ err: error }, 'realtime session hold failed');
  return new RelayError(500, 'internal_error', '服务器内部错误，请联系管理员');
}

interface Connected {
  upstream: WebSocket;
  /** Upstream frames that arrived with the handshake, before the bridge was set up. */
  early: UpstreamFrames;
  channel: RelayChannel;
  upstreamModel: string;
  tried: number[];
  /** The channel's concurrency slots, held for the whole session. */
  slots: Admission | null;
  /** The group whose channel serves the session (a later auto group after a cross-group retry). */
  group: string;
}

const notRealtime = (channel: RelayChannel) => new UpstreamError(400, `渠道 #${channel.id} 不支持 Realtime`, 'unsupported_endpoint', '');

/** Connects through the one attempt loop: the same channel limits, retry policy and cooldown as chat (docs/relay.md). */
async function connectWithFailover(
  ctx: AppContext,
  relay: RelayState,
  request: RealtimeRequest,
  isGone: () => boolean,
  trace: AttemptTrace,
): Promise<Connected> {
  const { caller, model } = request;
  const timeoutMs = ctx.config.relayTimeoutSeconds > 0 ? ctx.config.relayTimeoutSeconds * 1000 : 30_000;
  const { value, channel, tried, slots, group } = await runAttempts(ctx, relay, {
    group: caller.group,
    // Cross-group retry, as chat: an `auto` token with the flag goes on into its next auto groups.
    nextGroups: caller.pinnedChannelId === null ? crossRetryGroups(relay, caller, model) : undefined,
    model,
    pinnedChannelId: caller.pinnedChannelId,
    isCancelled: isGone,
    refusal: (channel) => (realtimeChannelTypes.has(channel.type) ? null : notRealtime(channel)),
    attempt: async (channel, key) => {
      const upstreamModel = channel.modelMapping?.[model] || model;
      const target = targetOf(channel, relay.dispatcher, undefined, key);
      const upgrade = buildRealtimeRequest(channel, target, upstreamModel, request);
      // Tracing on: the attempt span's traceparent goes with the WebSocket handshake.
      if (trace.span !== null) trace.span.sending(upgrade.headers, upgrade.url, upstreamModel);
      const { socket, early } = await connectUpstream(upgrade, timeoutMs);
      return { socket, early, upstreamModel };
    },
    keepsSlots: true,
    failureMessage: 'realtime upstream failed',
    trace,
  });
  return { upstream: value.socket, early: value.early, channel, upstreamModel: value.upstreamModel, tried, slots, group };
}

/**
 * Runs one accepted session: holds quota, connects upstream (client frames that arrive meanwhile are
 * queued), relays until either side closes, and bills the summed usage once when the upstream closes.
 */
export async function runRealtimeSession(
  ctx: AppContext,
  relay: RelayState,
  client: WebSocket,
  request: RealtimeRequest,
  active: ActiveSessions,
): Promise<void> {
  const queued: Array<[WebSocket.RawData, boolean]> = [];
  const queue = (data: WebSocket.RawData, isBinary: boolean) => queued.push([data, isBinary]);
  client.pause();
  client.on('message', queue);
  let isClientGone = false;
  client.once('close', () => {
    isClientGone = true;
  });
  // The token's concurrency slot (tokens.max_concurrency) and the channel's slots, held while the session runs.
  let tokenLease: Lease = freeLease;
  let channelSlots: Admission | null = null;
  const freeSlots = () => {
    tokenLease.release();
    channelSlots?.release();
  };
  const fail = (error: RelayError, code: number) => {
    if (ctx.metrics.isEnabled) observeFailed(ctx, '/v1/realtime', request.model, error, request.startedAt, request.pricing.isKnown);
    freeSlots();
    releaseSuccessSlot(ctx, request.successSlot);
    client.off('message', queue);
    client.resume(); // the closing handshake needs the client's close frame read
    if (client.readyState !== client.OPEN) return;
    client.send(errorEvent(error, request.language));
    client.close(code, error.code);
  };

  // Tracing on: one span for the whole session, its attempts (the handshakes) as children.
  const span =
    ctx.tracing === null
      ? null
      : new CallSpan(ctx.tracing, {
          operation: 'realtime',
          model: request.model,
          path: '/v1/realtime',
          isStream: true,
          userId: request.caller.user.id,
          tokenId: request.caller.token?.id ?? null,
          group: request.caller.group,
          headers: request.headers,
        });
  let hold: Hold;
  try {
    const planned = holdSession(ctx, relay, request, () => isClientGone);
    hold = planned instanceof Promise ? await planned : planned;
  } catch (error) {
    const refusal = error instanceof RelayError ? error : internalError(relay, error);
    recordFailedCall(ctx, relay, {
      caller: request.caller,
      model: request.model,
      error: refusal,
      trace: null,
      isStream: true,
      startedAt: request.startedAt,
      requestPath: '/v1/realtime',
    });
    span?.end(refusal);
    return fail(refusal, quotaCloseCode);
  }
  // A user with subscription funding: the session's cost is funded from the allowances as it grows.
  const growing = hold.funding === null ? null : new GrowingFunding(hold);

  let connected: Connected | null = null;
  let failure: RelayError | null = null;
  const trace = newAttemptTrace();
  trace.span = span;
  try {
    const admitted = admitToken(ctx, relay, request.caller, () => isClientGone);
    tokenLease = admitted instanceof Promise ? await admitted : admitted;
    connected = await connectWithFailover(ctx, relay, request, () => isClientGone, trace);
    channelSlots = connected.slots;
  } catch (error) {
    failure =
      error instanceof RelayError ? error : new RelayError(502, 'upstream_error', '上游服务出错，请稍后再试', true, 'upstream_error');
    // The error log (type 5, ErrorLogEnabled) of a session that never started; a client gone meanwhile is not one.
    if (!isClientGone)
      recordFailedCall(ctx, relay, {
        caller: request.caller,
        model: request.model,
        error: failure,
        trace,
        isStream: true,
        startedAt: request.startedAt,
        requestPath: '/v1/realtime',
      });
  }
  // The one place a session that never started gives its hold back (a started one settles in finish).
  if (!connected || isClientGone) releaseHold(hold);
  if (!connected) {
    span?.end(failure!);
    return fail(failure!, upstreamFailureCloseCode);
  }
  const { upstream, early, channel, upstreamModel, tried, group } = connected;
  // Served by a later auto group: the session is priced at that group's ratio, as chat is.
  const { groupRatio, userGroupRatio } =
    group === request.caller.group ? request : findGroupRatioInfo(ctx.options, request.caller.user.group, group);
  client.off('message', queue);
  if (isClientGone) {
    freeSlots();
    releaseSuccessSlot(ctx, request.successSlot);
    upstream.removeAllListeners();
    upstream.on('error', () => undefined);
    upstream.close(1001, '');
    span?.end(relayErrors.clientClosed());
    if (ctx.metrics.isEnabled)
      observeFailed(ctx, '/v1/realtime', request.model, relayErrors.clientClosed(), request.startedAt, request.pricing.isKnown);
    return;
  }

  const usage = emptyRealtimeUsage();
  let frtMs = -1;
  let isSettled = false;
  const finish = () => {
    if (isSettled) return;
    isSettled = true;
    active.delete(session);
    freeSlots();
    const quota = settleRealtimeSession(ctx, relay, growing, {
      hold,
      pricing: request.pricing,
      group,
      groupRatio,
      userGroupRatio,
      usage,
      model: request.model,
      upstreamModel,
      channelId: channel.id,
      tried,
      startedAt: request.startedAt,
      frtMs: Math.max(frtMs, 0),
    });
    if (ctx.metrics.isEnabled)
      ctx.metrics.observe({
        route: '/v1/realtime',
        model: modelLabel(ctx, request.model, request.pricing.isKnown),
        channelId: channel.id,
        status: 101,
        durationMs: Date.now() - request.startedAt,
        firstByteMs: frtMs >= 0 ? frtMs : undefined,
        promptTokens: inputTokensOf(usage),
        completionTokens: outputTokensOf(usage),
        quota,
      });
    if (span !== null) {
      span.settled({
        upstreamModel,
        channelId: channel.id,
        group,
        quota,
        startedAt: request.startedAt,
        firstChunkAt: frtMs >= 0 ? request.startedAt + frtMs : null,
        usage: { promptTokens: inputTokensOf(usage), completionTokens: outputTokensOf(usage), cachedTokens: cachedTokensOf(usage) },
      });
      span.end();
    }
  };
  const quotaPerUnit = ctx.options.number('QuotaPerUnit');
  // The response that used the quota up is still delivered; nothing more is started. Once: every
  // response.done still in flight finds the quota used up too.
  let isEnding = false;
  const endWhenExhausted = (exhausted: RelayError | null) => {
    if (!exhausted || isEnding) return;
    isEnding = true;
    setImmediate(() => {
      if (client.readyState === client.OPEN) client.send(errorEvent(exhausted, request.language));
      bridge.close(quotaCloseCode, exhausted.code);
    });
  };
  const bridge: RealtimeBridge = new RealtimeBridge(
    client,
    upstream,
    {
      onUpstreamFrame(frame, isBinary) {
        if (frtMs < 0) frtMs = Date.now() - request.startedAt;
        if (isBinary) return undefined;
        if (isSettled || !readServerEvent(usage, frame)) return clientErrorFrame(frame, request.language);
        // Clamped as the bill will be (settle-session.ts): a hold never grows past what can be billed.
        const running = clampQuota(computeRealtimeQuota(request.pricing, groupRatio, usage, quotaPerUnit));
        if (growing === null) {
          growHold(hold, running);
          endWhenExhausted(exhaustedQuota(request.caller));
          return undefined;
        }
        growing.grow(running).then(endWhenExhausted, (error: unknown) => {
          // The database failed: the session goes on; settle funds what it cost (funding-settle.ts).
          relay.log.error({ err: error, userId: request.caller.user.id }, 'realtime session funding not grown');
        });
        return undefined;
      },
      onUpstreamClosed: finish,
      onUpstreamTooLarge: () => errorEvent(relayErrors.upstreamMessageTooLarge(maxUpstreamMessageBytes), request.language),
    },
    queued,
    early,
    ctx.config.streamIdleTimeoutSeconds * 1000 * stalledClientFactor,
  );
  const session = {
    shutdown: () => {
      finish();
      bridge.terminate();
    },
  };
  active.add(session);
}
