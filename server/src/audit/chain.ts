import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Storage } from '../db/index.js';
import type { AuditLogsTable, Database } from '../db/schema.js';

/** What an entry says; the id, prev_hash and hash are given by appendAuditEntry. */
export type AuditEntry = Omit<AuditLogsTable, 'id' | 'prev_hash' | 'hash'>;

/**
 * The hash of a row: sha256 over the previous hash and the row's fields as a JSON array in a fixed
 * order (an array, so key order cannot vary between writers). Text columns are hashed as stored.
 */
export function hashAuditEntry(entry: AuditEntry, prevHash: string): string {
  const fields = [
    prevHash,
    Number(entry.created_at),
    Number(entry.user_id),
    entry.username,
    Number(entry.role),
    entry.ip,
    entry.method,
    entry.route,
    entry.entity,
    entry.entity_id,
    entry.action,
    entry.before,
    entry.after,
    Number(entry.status),
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/**
 * PostgreSQL refuses a NUL character in text: one in a refused request's option key must not lose
 * its entry. (before and after are JSON, which escapes it already.)
 */
function withoutNul(entry: AuditEntry): AuditEntry {
  const clean = (text: string) => text.split('\u0000').join('\uFFFD');
  return {
    ...entry,
    username: clean(entry.username),
    ip: clean(entry.ip),
    route: clean(entry.route),
    entity: clean(entry.entity),
    entity_id: clean(entry.entity_id),
    action: clean(entry.action),
  };
}

/**
 * Locks the head row by updating it: the first statement of the transaction, so on SQLite it takes
 * the writer lock before anything is read (no stale snapshot), and on PostgreSQL and MySQL a row lock
 * that a second appender waits on. Answers the head as it is now.
 */
async function lockHead(trx: Kysely<Database>) {
  await trx
    .updateTable('audit_head')
    .set((eb) => ({ seq: eb('seq', '+', 1) }))
    .where('id', '=', 1)
    .execute();
  return trx.selectFrom('audit_head').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
}

/**
 * The one write path of the audit trail: appends the entry after the newest one, in one transaction
 * with the head, so concurrent requests and instances never fork the chain. Answers the new row's id.
 */
export async function appendAuditEntry(storage: Storage, given: AuditEntry): Promise<number> {
  const entry = withoutNul(given);
  return storage.db.transaction().execute(async (trx) => {
    const head = await lockHead(trx);
    const hash = hashAuditEntry(entry, head.last_hash);
    const row = { ...entry, prev_hash: head.last_hash, hash };
    let id: number;
    if (storage.kind === 'postgres') {
      id = Number((await trx.insertInto('audit_logs').values(row).returning('id').executeTakeFirstOrThrow()).id);
    } else {
      id = Number((await trx.insertInto('audit_logs').values(row).executeTakeFirstOrThrow()).insertId);
    }
    await trx.updateTable('audit_head').set({ last_id: id, last_hash: hash }).where('id', '=', 1).execute();
    return id;
  });
}

/**
 * Retention: deletes the entries created before `cutoff` (unix seconds), from the oldest end only,
 * and moves the anchor to the hash of the newest deleted row, so the oldest kept row still links to
 * it. Under the head's lock: an append cannot slip between. Answers the rows removed.
 */
export async function pruneAuditBefore(storage: Storage, cutoff: number): Promise<number> {
  return storage.db.transaction().execute(async (trx) => {
    await lockHead(trx);
    const last = await trx
      .selectFrom('audit_logs')
      .select(['id', 'hash'])
      .where('created_at', '<', cutoff)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!last) return 0;
    const result = await trx.deleteFrom('audit_logs').where('id', '<=', last.id).executeTakeFirst();
    await trx.updateTable('audit_head').set({ anchor_hash: last.hash }).where('id', '=', 1).execute();
    return Number(result.numDeletedRows);
  });
}

export type ChainVerdict =
  { ok: true; checked: number } | { ok: false; checked: number; brokenId: number | null; reason: 'edited' | 'unlinked' | 'newest_missing' };

const pageSize = 1000;

/**
 * Walks the chain from the anchor to the head's newest row: an edited row fails its own hash, a
 * removed row (or one inserted out of band) breaks the next row's link, a removed newest row leaves
 * the head's hash unmatched (brokenId is then the last row that is still there, or null).
 * Rows appended while it runs are past the head it read and are left for the next check.
 */
export async function verifyAuditChain(storage: Storage): Promise<ChainVerdict> {
  const head = await storage.db.selectFrom('audit_head').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  let expected = head.anchor_hash;
  let checked = 0;
  let afterId = 0;
  let lastId: number | null = null;
  for (;;) {
    const rows = await storage.db
      .selectFrom('audit_logs')
      .selectAll()
      .where('id', '>', afterId)
      .where('id', '<=', Number(head.last_id))
      .orderBy('id')
      .limit(pageSize)
      .execute();
    for (const row of rows) {
      const id = Number(row.id);
      if (row.prev_hash !== expected) return { ok: false, checked, brokenId: id, reason: 'unlinked' };
      if (hashAuditEntry(row, row.prev_hash) !== row.hash) return { ok: false, checked, brokenId: id, reason: 'edited' };
      expected = row.hash;
      lastId = id;
      checked += 1;
    }
    if (rows.length < pageSize) break;
    afterId = Number(rows[rows.length - 1]!.id);
  }
  if (expected !== head.last_hash) return { ok: false, checked, brokenId: lastId, reason: 'newest_missing' };
  return { ok: true, checked };
}
