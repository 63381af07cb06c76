import type { Storage } from '../../src/db/index.js';

/** The rows a usage-writer test bills: a user, their token and a channel. */
export interface LedgerOwner {
  userId: number;
  tokenId: number;
  channelId: number;
}

/** Creates a user named `name` with `userQuota`, a token (key `<name>key`) with `tokenQuota`, and a channel. */
export async function createLedgerOwner(storage: Storage, name: string, userQuota: number, tokenQuota: number): Promise<LedgerOwner> {
  const now = Math.floor(Date.now() / 1000);
  await storage.db
    .insertInto('users')
    .values({ username: name, password: 'x', quota: userQuota, created_time: now } as never)
    .execute();
  const userId = (await storage.db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirstOrThrow()).id;
  await storage.db
    .insertInto('tokens')
    .values({ user_id: userId, key: `${name}key`, name: 't', remain_quota: tokenQuota, created_time: now } as never)
    .execute();
  const tokenId = (await storage.db.selectFrom('tokens').select('id').where('key', '=', `${name}key`).executeTakeFirstOrThrow()).id;
  await storage.db
    .insertInto('channels')
    .values({ type: 1, key: 'k', name: name, models: 'm', created_time: now } as never)
    .execute();
  const channelId = (await storage.db.selectFrom('channels').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
  return { userId, tokenId, channelId };
}
