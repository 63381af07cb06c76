import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../db/index.js';
import { storableText } from '../ledger/log-rows.js';
import { toRelayChannel, type RelayChannel } from '../routing/channel-index.js';
import { targetOf } from '../upstream/dispatch.js';
import type { UpstreamTarget } from '../providers/types.js';
import {
  failAndRefund,
  finalStatuses,
  sharedIdColumn,
  sharedTable,
  unfinishedStatuses,
  type Payers,
  type TaskTable,
} from '../ledger/task-ledger.js';
import type { RelayState } from '../state.js';

/** A lease outlives one poll of a batch; a crashed instance's tasks are free again after it. */
const leaseSeconds = 120;
const batchSize = 100;
/** How long one channel's answer to a poll is awaited, whatever it does (stalls, trickles): well inside a lease. */
const defaultFetchDeadlineMs = 60_000;

/** What a poll learns of one upstream task, in the gateway's terms. */
export interface TaskUpdate {
  upstreamId: string;
  /** One of the platform's statuses; FAILURE ends the task and refunds it. */
  status: string;
  failReason: string;
  progress: string;
  startTime: number;
  finishTime: number;
  /** The table's own columns the poll fills (Suno: data; Midjourney: image_url, prompt_en, ...). */
  columns: Record<string, string | number>;
}

/** A leased task as the poller hands it to its platform. */
export interface PolledTask {
  taskId: string;
  upstreamId: string;
  status: string;
  progress: string;
}

/** One asynchronous platform: where its tasks are kept and how a channel is asked about them. */
export interface PolledPlatform {
  table: TaskTable;
  /** In `tasks`, the platform column's value; `midjourneys` holds one platform. */
  platform?: string;
  /** `signal` ends at the poll's deadline: the requests stop, and what was read by then may be answered. */
  fetch(channel: RelayChannel, target: UpstreamTarget, upstreamIds: string[], signal: AbortSignal): Promise<TaskUpdate[]>;
  /** Told after a task's status or progress changed (Midjourney's notify hook). */
  changed?(ctx: AppContext, relay: TaskRelay, taskId: string): void;
}

/**
 * Polls unfinished tasks from their channels, platform by platform. Each poll first fails (and
 * refunds, once) the tasks older than the timeout, then leases up to a batch of the others — a
 * conditional UPDATE per task, so of several instances only one polls a task — asks each channel
 * for its tasks, and stores what it learns; a task that ends in FAILURE is refunded (ledger/task-ledger.ts).
 */
/** What the poller uses of the relay: its connection pools and log, and the payers' cached rows a refund re-reads. */
export type TaskRelay = Payers & Pick<RelayState, 'dispatcher' | 'log'>;

export class TaskPoller {
  readonly owner = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly relay: TaskRelay,
    private readonly platforms: readonly PolledPlatform[],
    private readonly log: (error: unknown) => void,
    private readonly options: { fetchDeadlineMs?: number } = {},
  ) {}

  start(intervalSeconds: number): void {
    if (intervalSeconds <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running)
        this.running = this.pollOnce()
          .catch(this.log)
          .finally(() => (this.running = null));
    }, intervalSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One poll of every platform (the interval calls it; tests call it directly). `now` in unix seconds. */
  async pollOnce(now = nowSeconds()): Promise<void> {
    for (const platform of this.platforms) await this.pollPlatform(platform, now).catch(this.log);
  }

  private async pollPlatform(platform: PolledPlatform, now: number): Promise<void> {
    const db = this.ctx.storage.db;
    const table = sharedTable(platform.table);
    const idColumn = sharedIdColumn(platform.table);
    // `tasks` holds several platforms; `midjourneys` one (and has no platform column).
    const kind = platform.platform;
    const expired = await db
      .selectFrom(table)
      .select(`${idColumn} as task_id`)
      .where('status', 'in', [...unfinishedStatuses])
      .where('submit_time', '<', now - this.ctx.config.taskTimeoutSeconds)
      .$if(kind !== undefined, (q) => q.where('platform', '=', kind!))
      .limit(batchSize)
      .execute();
    // Each task alone: one the database refuses to end is tried again next poll, and never stops the others or the poll.
    for (const task of expired) await failAndRefund(this.ctx, this.relay, platform.table, task.task_id, '任务超时').catch(this.log);

    const candidates = await db
      .selectFrom(table)
      .select(['id'])
      .where('status', 'in', [...unfinishedStatuses])
      .where('lease_until', '<', now)
      .$if(kind !== undefined, (q) => q.where('platform', '=', kind!))
      .orderBy('id')
      .limit(batchSize)
      .execute();
    const leased: number[] = [];
    for (const { id } of candidates) {
      const taken = await db
        .updateTable(table)
        .set({ lease_owner: this.owner, lease_until: now + leaseSeconds })
        .where('id', '=', id)
        .where('lease_until', '<', now)
        .where('status', 'not in', [...finalStatuses])
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) leased.push(id);
    }
    if (leased.length === 0) return;
    const rows = await db
      .selectFrom(table)
      .select([`${idColumn} as task_id`, 'upstream_id', 'channel_id', 'status', 'progress'])
      .where('id', 'in', leased)
      .execute();
    const byChannel = new Map<number, PolledTask[]>();
    for (const row of rows) {
      byChannel.set(row.channel_id, [
        ...(byChannel.get(row.channel_id) ?? []),
        { taskId: row.task_id, upstreamId: row.upstream_id, status: row.status, progress: row.progress },
      ]);
    }
    for (const [channelId, tasks] of byChannel) {
      await this.pollChannel(platform, channelId, tasks).catch(this.log);
      // Whatever happened, the lease is given back so the next poll (here or elsewhere) retries.
      await db
        .updateTable(table)
        .set({ lease_owner: '', lease_until: 0 })
        .where(
          idColumn,
          'in',
          tasks.map((task) => task.taskId),
        )
        .where('lease_owner', '=', this.owner)
        .execute();
    }
  }

  private async pollChannel(platform: PolledPlatform, channelId: number, tasks: PolledTask[]): Promise<void> {
    const row = await this.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', channelId).executeTakeFirst();
    const channel = row ? toRelayChannel(row) : null;
    if (!channel?.adapter) {
      for (const task of tasks)
        await failAndRefund(this.ctx, this.relay, platform.table, task.taskId, `渠道 #${channelId} 已不存在或不可用`).catch(this.log);
      return;
    }
    const updates = await this.fetchInTime(platform, channel, tasks);
    const byUpstream = new Map(updates.map((update) => [update.upstreamId, update]));
    for (const task of tasks) {
      const update = byUpstream.get(task.upstreamId);
      if (!update) continue;
      // One task's answer the database refuses is logged and retried next poll; it never holds up the others.
      const isStored = await this.store(platform, task.taskId, update).then(
        () => true,
        (error: unknown) => {
          this.log(error);
          return false;
        },
      );
      if (isStored && (update.status !== task.status || update.progress !== task.progress))
        platform.changed?.(this.ctx, this.relay, task.taskId);
    }
  }

  /**
   * A channel's answer within the deadline: its requests are aborted then (an upstream that stalls or
   * trickles forever holds up neither the poll nor the other channels, nor keeps a connection), and a
   * platform that would not stop is not waited for past half as long again (its late answer is dropped).
   * The tasks are not failed for it: they are asked again at the next poll, and time out as any other.
   */
  private async fetchInTime(platform: PolledPlatform, channel: RelayChannel, tasks: PolledTask[]): Promise<TaskUpdate[]> {
    const deadlineMs = this.options.fetchDeadlineMs ?? defaultFetchDeadlineMs;
    const deadline = new AbortController();
    const timers: NodeJS.Timeout[] = [];
    const late = new Promise<never>((_resolve, reject) => {
      timers.push(setTimeout(() => deadline.abort(), deadlineMs));
      timers.push(
        setTimeout(() => reject(new Error(`渠道 #${channel.id} 的任务查询超过 ${deadlineMs * 1.5} ms 未结束`)), deadlineMs * 1.5),
      );
    });
    const fetching = platform.fetch(
      channel,
      targetOf(channel, this.relay.dispatcher),
      tasks.map((task) => task.upstreamId),
      deadline.signal,
    );
    // An answer that comes after the race is over is nobody's: never an unhandled rejection.
    fetching.catch(() => undefined);
    try {
      return await Promise.race([fetching, late]);
    } finally {
      for (const timer of timers) clearTimeout(timer);
    }
  }

  private async store(platform: PolledPlatform, taskId: string, update: TaskUpdate): Promise<void> {
    const now = nowSeconds();
    const table = sharedTable(platform.table);
    const columns = Object.fromEntries(
      Object.entries(update.columns).map(([key, value]) => [key, typeof value === 'string' ? storableText(value, 0) : value]),
    );
    if (update.status === 'FAILURE') {
      if (Object.keys(columns).length > 0) {
        await this.ctx.storage.db
          .updateTable(table)
          .set(columns)
          .where(sharedIdColumn(platform.table), '=', taskId)
          .where('status', 'not in', [...finalStatuses])
          .execute();
      }
      await failAndRefund(this.ctx, this.relay, platform.table, taskId, update.failReason || '上游任务失败', update.progress || '100%');
      return;
    }
    await this.ctx.storage.db
      .updateTable(table)
      .set({
        ...columns,
        status: update.status,
        progress: update.progress,
        fail_reason: storableText(update.failReason, 0),
        ...(platform.table === 'tasks' ? { updated_at: now } : {}),
        ...(update.startTime ? { start_time: update.startTime } : {}),
        ...(update.status === 'SUCCESS' ? { finish_time: update.finishTime || now } : {}),
      })
      .where(sharedIdColumn(platform.table), '=', taskId)
      .where('status', 'not in', [...finalStatuses])
      .execute();
  }
}
