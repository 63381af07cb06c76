import { createRelayToken, createRelayUser } from './relay-fixtures.js';
import type { TestServer } from './test-server.js';

/** A video caller: a user with `quota` and a token limited to it. */
export async function newVideoCaller(server: TestServer, quota: number): Promise<{ id: number; tokenId: number; key: string }> {
  const id = await createRelayUser(server.ctx, { quota });
  const token = await createRelayToken(server.ctx, id, { remainQuota: quota });
  return { id, tokenId: token.id, key: token.apiKey };
}

/**
 * A user's side of the task ledger, and the channel's: quota left and used, the consume (type 2) and
 * refund (type 6) log sums, the channel's used quota and status.
 */
export async function videoLedger(server: TestServer, userId: number, channelId: number) {
  const db = server.ctx.storage.db;
  const row = await db.selectFrom('users').select(['quota', 'used_quota']).where('id', '=', userId).executeTakeFirstOrThrow();
  const logs = await db.selectFrom('logs').select(['type', 'quota']).where('user_id', '=', userId).where('type', 'in', [2, 6]).execute();
  const sum = (type: number) => logs.filter((log) => log.type === type).reduce((total, log) => total + Number(log.quota), 0);
  const channel = await db.selectFrom('channels').select(['used_quota', 'status']).where('id', '=', channelId).executeTakeFirstOrThrow();
  return {
    quota: Number(row.quota),
    used: Number(row.used_quota),
    channelUsed: Number(channel.used_quota),
    channelStatus: Number(channel.status),
    consumed: sum(2),
    refunded: sum(6),
  };
}

/** Polls the tasks `times` times (the tests drive the poller: TASK_POLL_INTERVAL 0). */
export async function pollTasks(server: TestServer, times = 2): Promise<void> {
  for (let i = 0; i < times; i += 1) await server.relay.tasks.pollOnce();
}
