import { randomBytes } from 'node:crypto';
import type { Cache } from './types.js';

/**
 * A periodic job that one instance of a cluster runs at a time, as new-api's master node runs its
 * channel test and balance refresh. Every instance looks now and then whether a run is due (the
 * end of the last run, kept in the cache, is a period ago; before any run, the instance's own start
 * counts); the one that gets the lease (a cache lease: shared through Redis, renewed while the run
 * lasts, expiring with an instance that dies) runs it and records when it ended. With the memory
 * cache this is simply a timer of one instance.
 */
export interface ClusterJobOptions {
  cache: Cache;
  /** Names the cache keys: `job:<name>` (the lease) and `job:<name>:last` (when the last run ended). */
  name: string;
  /** Milliseconds from the end of one run to the start of the next, or null while the job is off; read at every look. */
  periodMs(): number | null;
  /** One run; `signal` is aborted when the instance stops (stop between items). */
  run(signal: AbortSignal): Promise<void>;
  onError(error: unknown): void;
}

export interface ClusterJob {
  /** Stops looking, aborts a run in progress and waits at most `waitMs` for it to end. */
  stop(waitMs: number): Promise<void>;
}

/** A run holds its lease this long past the last heartbeat (renewed every third of it). */
const leaseTtlMs = 60_000;
/** Looks at least once a minute (a job turned on by an option starts within a minute), at most ten times a second. */
const maxLookMs = 60_000;
const minLookMs = 100;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function startClusterJob(options: ClusterJobOptions): ClusterJob {
  const { cache } = options;
  const holder = randomBytes(8).toString('hex');
  const leaseKey = `job:${options.name}`;
  const lastKey = `${leaseKey}:last`;
  const startedAt = Date.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;

  const lastRunEnd = async (): Promise<number> => {
    const stored = Number(await cache.get(lastKey));
    return Number.isFinite(stored) && stored > 0 ? stored : startedAt;
  };
  const isDue = async (period: number) => Date.now() - (await lastRunEnd()) >= period;

  async function runIfDue(): Promise<void> {
    const period = options.periodMs();
    if (period === null || !(await isDue(period))) return;
    if (!(await cache.acquireLease(leaseKey, holder, 1, leaseTtlMs))) return;
    const heartbeat = setInterval(
      () => void cache.renewLeases([{ key: leaseKey, leaseId: holder }], leaseTtlMs).catch(options.onError),
      leaseTtlMs / 3,
    );
    heartbeat.unref();
    try {
      // Another instance may have ended a run between this one's look and its lease.
      if (!(await isDue(period))) return;
      try {
        await options.run(controller.signal);
      } finally {
        await cache.set(lastKey, String(Date.now()), Math.ceil(Math.max(4 * period, 3_600_000) / 1000));
      }
    } finally {
      clearInterval(heartbeat);
      await cache.releaseLease(leaseKey, holder);
    }
  }

  function schedule(): void {
    if (controller.signal.aborted) return;
    const period = options.periodMs();
    const delay = period === null ? maxLookMs : Math.min(maxLookMs, Math.max(minLookMs, period / 4));
    timer = setTimeout(look, delay);
    timer.unref();
  }

  function look(): void {
    timer = null;
    running = runIfDue()
      .catch(options.onError)
      .finally(() => {
        running = null;
        schedule();
      });
  }

  schedule();
  return {
    async stop(waitMs) {
      controller.abort();
      if (timer) clearTimeout(timer);
      timer = null;
      if (running) await Promise.race([running, sleep(waitMs)]);
    },
  };
}
