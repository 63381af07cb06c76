import { relayOf } from './test-server.js';
import type { AppContext } from '../../src/context.js';
import { aggregateQuotaData } from '../../src/api/data/aggregate-quota-data.js';
import { callChat, runPool, tally, type CallResult } from './chaos-load.js';
import type { ChaosUpstream } from './chaos-upstream.js';
import { checkLedger, type LedgerExpectation, type LedgerReport } from './ledger-balance.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from './relay-fixtures.js';

/**
 * The load-with-faults ledger scenario: one user with three tokens, each token one kind of client,
 * so what the client saw can be held against what was billed per token:
 *   plain   (limited)   non-stream requests read to the end: one consume log per complete answer, no more
 *   streams (unlimited) streams read to the end: a log per complete stream, at most one per cut stream
 *   leavers (unlimited) streams the client leaves after the first bytes: at most one log each
 * Two channels on the same chaos upstream, RetryTimes 2, auto-ban off (faults must not empty the pool).
 */
export const initialUserQuota = 1e15;
export const initialPlainRemain = 5e14;

export interface ChaosFixtures {
  userId: number;
  tokens: { plain: { id: number; apiKey: string }; streams: { id: number; apiKey: string }; leavers: { id: number; apiKey: string } };
  expectation: LedgerExpectation;
}

export async function createChaosFixtures(ctx: AppContext, upstream: ChaosUpstream): Promise<ChaosFixtures> {
  await setOption(ctx, 'RetryTimes', '2');
  const userId = await createRelayUser(ctx, { quota: initialUserQuota });
  const plain = await createRelayToken(ctx, userId, { name: 'plain', remainQuota: initialPlainRemain, isUnlimited: false });
  const streams = await createRelayToken(ctx, userId, { name: 'streams', isUnlimited: true });
  const leavers = await createRelayToken(ctx, userId, { name: 'leavers', isUnlimited: true });
  for (const key of ['chaos-a', 'chaos-b']) {
    await createRelayChannel(ctx, { key, baseURL: upstream.url, models: ['gpt-4o-mini'], autoBan: false, weight: 1 });
  }
  return {
    userId,
    tokens: { plain, streams, leavers },
    expectation: {
      users: [{ id: userId, initialQuota: initialUserQuota }],
      tokens: [
        { id: plain.id, initialRemain: initialPlainRemain },
        { id: streams.id, initialRemain: null },
        { id: leavers.id, initialRemain: null },
      ],
    },
  };
}

type Kind = 'plain' | 'streams' | 'leavers';
const kindOf = (i: number): Kind => (i % 20 < 9 ? 'plain' : i % 20 < 18 ? 'streams' : 'leavers');

export interface ScenarioResult {
  counts: Record<string, number>;
  report: LedgerReport;
  /** Problems of the client/ledger comparison, as sentences. */
  mismatches: string[];
  seconds: number;
  failures: CallResult[];
}

export interface ScenarioOptions {
  urls: string[];
  /** Every instance, flushed after the load. */
  contexts: AppContext[];
  upstream: ChaosUpstream;
  fixtures: ChaosFixtures;
  requests: number;
  concurrency: number;
}

export async function runChaosScenario(options: ScenarioOptions): Promise<ScenarioResult> {
  const { urls, upstream, fixtures, requests, concurrency } = options;
  const started = performance.now();
  let restart: Promise<void> | null = null;
  const results = await runPool(
    requests,
    concurrency,
    async (i) => {
      const kind = kindOf(i);
      const isStream = kind !== 'plain';
      const body: Record<string, unknown> = {
        model: 'gpt-4o-mini',
        stream: isStream,
        messages: [{ role: 'user', content: `chaos request ${i} ${'y'.repeat(i % 37)}` }],
      };
      if (kind === 'leavers') body.max_tokens = 400;
      else if (i % 3 !== 0) body.max_tokens = 6 + (i % 25);
      if (isStream && i % 2 === 0) body.stream_options = { include_usage: true };
      const result = await callChat({
        baseUrl: urls[i % urls.length]!,
        apiKey: fixtures.tokens[kind].apiKey,
        body,
        isLeaving: kind === 'leavers',
      });
      return { label: kind, result };
    },
    (done) => {
      // The upstream restarts once, half-way through: connections in flight are cut, new ones refused for a moment.
      if (done === Math.floor(requests / 2)) restart = upstream.restart(50);
    },
  );
  await restart;
  for (const ctx of options.contexts) await relayOf(ctx).usage.flush();
  const seconds = (performance.now() - started) / 1000;

  const counts = tally(results);
  const report = await checkLedger(options.contexts[0]!.storage.db, fixtures.expectation);
  const mismatches: string[] = [];
  const count = (key: string) => counts[key] ?? 0;
  const logsOf = (kind: Kind) => report.logsByToken.get(fixtures.tokens[kind].id) ?? 0;
  if (logsOf('plain') !== count('plain:complete'))
    mismatches.push(`plain: ${count('plain:complete')} complete answers but ${logsOf('plain')} consume logs`);
  if (count('plain:cut') > 0) mismatches.push(`plain: ${count('plain:cut')} non-stream answers were cut after a 200`);
  if (logsOf('streams') < count('streams:complete') || logsOf('streams') > count('streams:complete') + count('streams:cut')) {
    mismatches.push(
      `streams: ${count('streams:complete')} complete and ${count('streams:cut')} cut, but ${logsOf('streams')} consume logs`,
    );
  }
  if (logsOf('leavers') > count('leavers:left') + count('leavers:complete') + count('leavers:cut')) {
    mismatches.push(`leavers: ${logsOf('leavers')} consume logs for ${count('leavers:left')} streams left early`);
  }
  // The dashboard's hourly quota_data, folded by every instance at once (they serialize on the
  // watermark row), counts each consume log exactly once.
  const later = Math.floor(Date.now() / 1000) + 3600;
  await Promise.all(options.contexts.map((ctx) => aggregateQuotaData(ctx, { now: later })));
  const folded = await options.contexts[0]!.storage.db.selectFrom('quota_data').select(['count', 'quota']).execute();
  const foldedCount = folded.reduce((sum, row) => sum + Number(row.count), 0);
  const foldedQuota = folded.reduce((sum, row) => sum + Number(row.quota), 0);
  if (foldedCount !== report.logCount || foldedQuota !== report.logQuota) {
    mismatches.push(
      `quota_data holds ${foldedCount} requests and ${foldedQuota} quota, the consume logs ${report.logCount} and ${report.logQuota}`,
    );
  }
  for (const ctx of options.contexts) {
    if (relayOf(ctx).usage.pendingLogCount !== 0)
      mismatches.push(`an instance still holds ${relayOf(ctx).usage.pendingLogCount} log rows after the flush`);
  }
  const failures = results.filter(({ result }) => result.outcome === 'failed').map(({ result }) => result);
  return { counts, report, mismatches, seconds, failures };
}
