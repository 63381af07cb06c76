import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../db/index.js';
import { storableText } from '../pipeline/log-rows.js';
import { toRelayChannel } from '../pipeline/channel-index.js';
import { targetOf } from '../pipeline/dispatch.js';
import { fetchSunoTasks, type SunoTaskState } from '../providers/suno/platform.js';
import { failAndRefund, finalStatuses, unfinishedStatuses } from './ledger.js';

/** A lease outlives one poll of a batch; a crashed instance's tasks are free again after it. */
const leaseSeconds = 120;
const batchSize = 100;

/**
 * Polls unfinished tasks from their channels. Each poll first fails (and refunds, once) the tasks
 * older than the timeout, then leases up to a batch of the others — a conditional UPDATE per task,
 * so of several instances only one polls a task — asks each channel for its tasks, and stores what
 * it learns; a task that ends in FAILURE is refunded (ledger.ts).
 */
export class TaskPoller {
  readonly owner = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly ctx: AppContext, private readonly dispatcher: Dispatcher, private readonly log: (error: unknown) => void) {}

  start(intervalSeconds: number): void {
    if (intervalSeconds <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.pollOnce().catch(this.log).finally(() => (this.running = null));
    }, intervalSeconds * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One poll (the interval calls it; tests call it directly). `now` in unix seconds. */
  async pollOnce(now = nowSeconds()): Promise<void> {
    const db = this.ctx.storage.db;
    const expired = await db.selectFrom('tasks').select('task_id').where('status', 'in', [...unfinishedStatuses])
      .where('submit_time', '<', now - this.ctx.config.taskTimeoutSeconds).limit(batchSize).execute();
    for (const task of expired) await failAndRefund(this.ctx, task.task_id, '任务超时');

    const candidates = await db.selectFrom('tasks').select(['id']).where('status', 'in', [...unfinishedStatuses])
      .where('lease_until', '<', now).where('platform', '=', 'suno').orderBy('id').limit(batchSize).execute();
    const leased: number[] = [];
    for (const { id } of candidates) {
      const taken = await db.updateTable('tasks').set({ lease_owner: this.owner, lease_until: now + leaseSeconds })
        .where('id', '=', id).where('lease_until', '<', now).where('status', 'not in', [...finalStatuses]).executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) leased.push(id);
    }
    if (leased.length === 0) return;
    const tasks = await db.selectFrom('tasks').select(['task_id', 'upstream_id', 'channel_id']).where('id', 'in', leased).execute();
    const byChannel = new Map<number, typeof tasks>();
    for (const task of tasks) byChannel.set(task.channel_id, [...(byChannel.get(task.channel_id) ?? []), task]);
    for (const [channelId, list] of byChannel) {
      await this.pollChannel(channelId, list).catch(this.log);
      // Whatever happened, the lease is given back so the next poll (here or elsewhere) retries.
      await db.updateTable('tasks').set({ lease_owner: '', lease_until: 0 }).where('task_id', 'in', list.map((task) => task.task_id)).where('lease_owner', '=', this.owner).execute();
    }
  }

  private async pollChannel(channelId: number, tasks: Array<{ task_id: string; upstream_id: string }>): Promise<void> {
    const row = await this.ctx.storage.db.selectFrom('channels').selectAll().where('id', '=', channelId).executeTakeFirst();
    const channel = row ? toRelayChannel(row) : null;
    if (!channel?.adapter) {
      for (const task of tasks) await failAndRefund(this.ctx, task.task_id, `渠道 #${channelId} 已不存在或不可用`);
      return;
    }
    const states = await fetchSunoTasks(channel.adapter, targetOf(channel, this.dispatcher), tasks.map((task) => task.upstream_id));
    const byUpstream = new Map(states.map((state) => [state.upstreamId, state]));
    for (const task of tasks) {
      const state = byUpstream.get(task.upstream_id);
      if (state) await this.store(task.task_id, state);
    }
  }

  private async store(taskId: string, state: SunoTaskState): Promise<void> {
    if (state.status === 'FAILURE') {
      await failAndRefund(this.ctx, taskId, state.failReason || '上游任务失败');
      return;
    }
    const now = nowSeconds();
    await this.ctx.storage.db.updateTable('tasks').set({
      status: state.status, progress: state.progress, fail_reason: storableText(state.failReason, 0), data: storableText(state.data, 0), updated_at: now,
      ...(state.startTime ? { start_time: state.startTime } : {}),
      ...(state.status === 'SUCCESS' ? { finish_time: state.finishTime || now } : {}),
    }).where('task_id', '=', taskId).where('status', 'not in', [...finalStatuses]).execute();
  }
}
