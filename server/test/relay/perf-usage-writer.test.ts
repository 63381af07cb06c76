import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../src/db/index.js';
import type { NewLog } from '../../src/db/schema.js';
import type { CachedToken, CachedUser } from '../../src/relay/pipeline/access-cache.js';
import { UsageWriter } from '../../src/relay/ledger/usage-writer.js';
import { createLedgerOwner } from '../helpers/ledger-owner.js';
import { createTestStorage, storageKinds } from '../helpers/test-storage.js';

/**
 * The write-behind flush on every dialect (SQLite: cached prepared statements, one multi-row insert
 * per batch size; PostgreSQL/MySQL: Kysely): log rows queued as records built at flush time and as
 * plain rows (with columns left out) land in order with the migration's defaults, counters exactly.
 */
describe.each(storageKinds())('usage writer flush on %s', (kind) => {
  let storage: Storage;
  let cleanup: () => Promise<void>;
  let userId: number;
  let tokenId: number;
  let channelId: number;

  beforeAll(async () => {
    ({ storage, cleanup } = await createTestStorage(kind));
    ({ userId, tokenId, channelId } = await createLedgerOwner(storage, 'perf', 1_000_000, 500_000));
  });
  afterAll(async () => cleanup());

  it('writes 250 rows (records and plain rows, 3 batches) in order and the counters exactly', async () => {
    const writer = new UsageWriter(storage, () => undefined);
    const user = { id: userId, quota: 1_000_000, usedQuota: 0, pendingQuota: 0, pendingCount: 0, held: 0 } as CachedUser;
    const token = { id: tokenId, isUnlimited: false, remainQuota: 500_000, usedQuota: 0, pendingQuota: 0, held: 0 } as CachedToken;
    const expected: NewLog[] = [];
    let built = 0;
    for (let i = 0; i < 250; i += 1) {
      const row: NewLog = {
        user_id: userId,
        created_at: 1_700_000_000 + i,
        type: 2,
        content: `c${i} 倍率`,
        username: 'perf',
        token_name: 't',
        model_name: `m${i % 7}`,
        quota: i + 1,
        prompt_tokens: i * 3,
        completion_tokens: i * 5,
        use_time: i % 4,
        is_stream: i % 2,
        channel_id: channelId,
        token_id: tokenId,
        group: 'default',
        ip: '',
        other: JSON.stringify({ i, path: '/v1/chat/completions' }),
      };
      if (i % 10 === 9) {
        // A plain row leaving defaulted columns out (as the realtime settle may).
        const plain: NewLog = { user_id: userId, created_at: row.created_at, type: 2, quota: row.quota, model_name: row.model_name };
        writer.record(user, token, channelId, i + 1, plain);
        expected.push({
          ...plain,
          content: '',
          username: '',
          token_name: '',
          prompt_tokens: 0,
          completion_tokens: 0,
          use_time: 0,
          is_stream: 0,
          channel_id: 0,
          token_id: 0,
          group: '',
          ip: '',
          other: '',
        });
      } else {
        writer.record(user, token, channelId, i + 1, { toRow: () => ((built += 1), row) });
        expected.push(row);
      }
    }
    expect(built).toBe(0); // rows are built at flush time
    await writer.flush();
    expect(built).toBe(225);
    expect(writer.pendingLogCount).toBe(0);

    const rows = await storage.db.selectFrom('logs').selectAll().orderBy('id').execute();
    expect(rows).toHaveLength(250);
    const columns = Object.keys(expected[0]!) as Array<keyof NewLog>;
    rows.forEach((row, index) => {
      for (const column of columns)
        expect(Number.isNaN(Number(expected[index]![column])) ? row[column] : Number(row[column]), `${index}.${column}`).toEqual(
          Number.isNaN(Number(expected[index]![column])) ? expected[index]![column] : Number(expected[index]![column]),
        );
    });

    const total = (250 * 251) / 2;
    const userRow = await storage.db
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect([Number(userRow.quota), Number(userRow.used_quota), Number(userRow.request_count)]).toEqual([1_000_000 - total, total, 250]);
    const tokenRow = await storage.db
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    expect([Number(tokenRow.remain_quota), Number(tokenRow.used_quota)]).toEqual([500_000 - total, total]);
    const channelRow = await storage.db.selectFrom('channels').select('used_quota').where('id', '=', channelId).executeTakeFirstOrThrow();
    expect(Number(channelRow.used_quota)).toBe(total);
    expect([user.pendingQuota, user.quota, token.pendingQuota, token.remainQuota]).toEqual([0, 1_000_000 - total, 0, 500_000 - total]);
  });
});
