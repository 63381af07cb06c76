import { BodyBudget } from '../http/request-body.js';
import { Agent } from 'undici';
import type { AppContext } from '../context.js';
import { AccessCache } from './pipeline/access-cache.js';
import { ChannelCooldown } from './routing/channel-cooldown.js';
import { ConcurrencyLimiter } from './routing/concurrency.js';
import { ChannelIndex } from './routing/channel-index.js';
import { UsageWriter } from './ledger/usage-writer.js';
import { OutputEstimates } from './ledger/output-estimate.js';
import { startFundingRecovery } from './ledger/funding-recovery.js';
import type { FundingHoldStore } from '../subscriptions/funding-holds.js';
import { taskPlatforms } from './tasks/platforms.js';
import { TaskPoller } from './tasks/poller.js';
import { createAnswerStore, type AnswerStore } from './cache/answer-store.js';

/** Everything the relay keeps in memory, built once per app and shut down with it. */
export interface RelayState {
  access: AccessCache;
  channels: ChannelIndex;
  usage: UsageWriter;
  /** Keep-alive connection pools to upstreams, one pool per origin. */
  dispatcher: Agent;
  /** The server log (upstream failures are logged here in full, never sent to callers). */
  log: RelayLog;
  /** Polls unfinished tasks (relay/tasks). */
  tasks: TaskPoller;
  /** Concurrency slots of tokens, channels and keys, shared by every instance through the cache. */
  limiter: ConcurrencyLimiter;
  /** The circuit breaker: channels cooling down after consecutive failures. */
  cooldown: ChannelCooldown;
  /** How long each model's answers run, for the likely hold (ledger/hold-policy.ts). */
  outputs: OutputEstimates;
  /** Subscription shares held by this instance's calls, written down (ledger/funding-recovery.ts). */
  holds: FundingHoldStore;
  /** Answers of the response cache (relay/cache/): this instance's memory, or Redis shared by every instance. */
  answers: AnswerStore;
  /** What whole upstream answers being read may hold in memory at once (MAX_ANSWER_MEMORY_MB). */
  answerBudget: BodyBudget;
}

export interface RelayLog {
  error(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export async function createRelayState(ctx: AppContext, logger: RelayLog): Promise<RelayState> {
  const log = (error: unknown, message: string) => logger.error({ err: error }, message);
  const access = new AccessCache(ctx.storage);
  const channels = new ChannelIndex(ctx.storage);
  const usage = new UsageWriter(
    ctx.storage,
    (error) => log(error, 'usage flush failed; retrying at the next interval'),
    (error, aside) =>
      log(
        error,
        `usage log row set aside (refused by the database): user ${aside.userId}, token ${aside.tokenId}, channel ${aside.channelId}, quota ${aside.quota} left out of the counters`,
      ),
  );
  const dispatcher = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 300_000,
    connections: 512,
    pipelining: 1,
    headersTimeout: ctx.config.relayTimeoutSeconds > 0 ? ctx.config.relayTimeoutSeconds * 1000 : 300_000,
    bodyTimeout: 0,
  });
  await channels.rebuild();
  usage.start(ctx.config.batchUpdateIntervalMs);
  const recovery = startFundingRecovery(ctx, logger);

  const rebuildChannels = () => void channels.rebuild().catch((error) => log(error, 'channel index rebuild failed'));
  const reloadTokens = (payload: string) =>
    void usage
      .exclusive(() => access.reloadTokens(payload ? Number(payload) : undefined))
      .catch((error) => log(error, 'token reload failed'));
  const reloadUsers = (payload: string) =>
    void usage
      .exclusive(() => access.reloadUsers(payload ? Number(payload) : undefined))
      .catch((error) => log(error, 'user reload failed'));
  await ctx.bus.subscribe('channels', rebuildChannels);
  await ctx.bus.subscribe('tokens', reloadTokens);
  await ctx.bus.subscribe('users', reloadUsers);
  const limiter = new ConcurrencyLimiter(ctx.cache, (error) =>
    logger.warn({ err: error }, 'concurrency slot not kept in the cache; the request goes on'),
  );
  const cooldown = new ChannelCooldown(ctx, channels);
  await ctx.bus.subscribe('cooldowns', (payload) => cooldown.apply(payload));
  const sync = setInterval(() => {
    rebuildChannels();
    reloadTokens('');
    reloadUsers('');
  }, ctx.config.syncFrequencySeconds * 1000);
  sync.unref();

  const tasks = new TaskPoller(ctx, { dispatcher, log: logger, usage, access, holds: recovery.holds }, taskPlatforms, (error) =>
    log(error, 'task poll failed'),
  );
  tasks.start(ctx.config.taskPollIntervalSeconds);

  ctx.onClose.push(async () => {
    clearInterval(sync);
    limiter.close();
    await tasks.stop();
    usage.stop();
    await usage.flush();
    await recovery.stop();
    await dispatcher.close();
  });
  ctx.metrics.setSources({
    relayCallsInFlight: () => ctx.lifecycle.callsInFlight,
    channelStates: () => channels.enabledIds().map((id) => ({ id, isUp: !channels.isCooling(id) })),
    billing: () => ({
      pendingLogs: usage.pendingLogCount,
      lastFlushAgeSeconds: (Date.now() - usage.lastFlushedAt) / 1000,
      flushFailures: usage.flushFailures,
    }),
  });
  const answers = createAnswerStore(
    ctx.cache,
    () => ctx.options.number('response_cache.max_bytes'),
    (error) => logger.warn({ err: error }, 'response cache unavailable; the call goes on as a miss'),
  );
  return {
    access,
    channels,
    usage,
    dispatcher,
    log: logger,
    tasks,
    limiter,
    cooldown,
    outputs: new OutputEstimates(),
    answerBudget: new BodyBudget(ctx.config.answerMemoryBytes),
    holds: recovery.holds,
    answers,
  };
}
