import { startClusterJob } from '../../../cache/cluster-job.js';
import type { RelayFacade } from '../../../relay/facade.js';
import type { AppContext } from '../../../context.js';
import { describeChannelStatusChange, type ChannelStatusChange } from './channel-status-log.js';
import { runChannelTest } from './test-channel.js';
import { refreshAllBalances } from './update-balance.js';

/**
 * The periodic channel checks of new-api, run by one instance of a cluster at a time
 * (cache/cluster-job.ts):
 * - the channel test, every CHANNEL_TEST_FREQUENCY minutes or, without it, every
 *   `monitor_setting.auto_test_channel_minutes` while `monitor_setting.auto_test_channel_enabled`:
 *   enabled channels are tested, and auto-disabled ones while AutomaticEnableChannelEnabled (a
 *   passing one comes back); the rules are the manual test's (runChannelTest). Channels an admin
 *   disabled by hand are never tested.
 * - the balance refresh, every CHANNEL_UPDATE_FREQUENCY minutes (refreshAllBalances).
 * Each change is a system log row (written by the use case) and a server log line (here).
 */
export interface CheckLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

const enabled = 1;
const autoDisabled = 3;

/** Milliseconds between channel tests, or null while they are off. */
export function channelTestPeriodMs(ctx: AppContext): number | null {
  const fromEnv = ctx.config.channelTestFrequencyMinutes;
  if (fromEnv !== null) return fromEnv * 60_000;
  if (!ctx.options.bool('monitor_setting.auto_test_channel_enabled')) return null;
  return ctx.options.number('monitor_setting.auto_test_channel_minutes') * 60_000;
}

function logChange(log: CheckLog, change: ChannelStatusChange, source: string): void {
  const fields = { channelId: change.channelId, channel: change.channelName, reason: change.reason || undefined, source };
  if (change.isEnabled) log.info(fields, describeChannelStatusChange(change));
  else log.warn(fields, describeChannelStatusChange(change));
}

export interface ChannelCheckSummary {
  tested: number;
  failed: number;
  disabled: number;
  enabled: number;
}

/** One pass of the channel test over the channels it may test, one after another. */
export async function runChannelCheck(
  ctx: AppContext,
  relay: RelayFacade,
  log: CheckLog,
  signal?: AbortSignal,
): Promise<ChannelCheckSummary> {
  const statuses = ctx.options.bool('AutomaticEnableChannelEnabled') ? [enabled, autoDisabled] : [enabled];
  const rows = await ctx.storage.db.selectFrom('channels').select('id').where('status', 'in', statuses).orderBy('id').execute();
  const summary: ChannelCheckSummary = { tested: 0, failed: 0, disabled: 0, enabled: 0 };
  for (const row of rows) {
    if (signal?.aborted) break;
    try {
      // The status is read again just before the test: one disabled by hand meanwhile is skipped.
      const outcome = await runChannelTest(ctx, relay, row.id, { statuses });
      if (!outcome) continue;
      summary.tested += 1;
      if (!outcome.result.success) summary.failed += 1;
      if (!outcome.change) continue;
      summary[outcome.change.isEnabled ? 'enabled' : 'disabled'] += 1;
      logChange(log, outcome.change, 'channel test');
    } catch (error) {
      log.error({ err: error, channelId: row.id }, 'periodic channel test: the channel could not be tested');
    }
  }
  return summary;
}

/** Starts both checks on this instance; `stop` ends them (a run in progress stops after its current channel). */
export function startChannelChecks(ctx: AppContext, relay: RelayFacade, log: CheckLog): { stop(): Promise<void> } {
  const test = startClusterJob({
    cache: ctx.cache,
    name: 'channel-test',
    periodMs: () => channelTestPeriodMs(ctx),
    run: async (signal) => {
      const summary = await runChannelCheck(ctx, relay, log, signal);
      log.info({ ...summary }, 'periodic channel test done');
    },
    onError: (error) => log.error({ err: error }, 'periodic channel test failed; it runs again at the next period'),
  });
  const balance = startClusterJob({
    cache: ctx.cache,
    name: 'channel-balance',
    periodMs: () => (ctx.config.channelUpdateFrequencyMinutes === null ? null : ctx.config.channelUpdateFrequencyMinutes * 60_000),
    run: async (signal) => {
      const refresh = await refreshAllBalances(ctx, relay, signal);
      for (const change of refresh.changes) logChange(log, change, 'balance refresh');
      log.info({ updated: refresh.updated, failed: refresh.failed, disabled: refresh.changes.length }, 'periodic balance refresh done');
    },
    onError: (error) => log.error({ err: error }, 'periodic balance refresh failed; it runs again at the next period'),
  });
  const waitMs = ctx.config.shutdownTimeoutSeconds * 1000;
  return {
    async stop() {
      await Promise.all([test.stop(waitMs), balance.stop(waitMs)]);
    },
  };
}
