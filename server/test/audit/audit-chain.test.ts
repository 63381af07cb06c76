import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAuditRetention } from '../../src/api/audit/audit-retention.js';
import { appendAuditEntry, verifyAuditChain, type AuditEntry } from '../../src/audit/chain.js';
import { setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { createTestDatabase, storageKinds, type TestDatabase } from '../helpers/test-storage.js';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../../..');
const day = 24 * 60 * 60;

/** `npm run audit:verify`'s script against the test database: its exit code and output. */
async function verifyCommand(database: TestDatabase): Promise<{ code: number; out: string }> {
  const env = { ...process.env, SQL_DSN: database.dsn, SQLITE_PATH: database.sqlitePath || '/tmp/unused.db', LOG_LEVEL: 'silent' };
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'server/src/audit/verify-cli.ts'], {
      cwd: repoRoot,
      env,
      timeout: 60_000,
    });
    return { code: 0, out: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

const entry = (overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  created_at: Math.floor(Date.now() / 1000),
  user_id: 1,
  username: 'root',
  role: 100,
  ip: '127.0.0.1',
  method: 'PUT',
  route: '/api/option/',
  entity: 'option',
  entity_id: 'Notice',
  action: 'update',
  before: '',
  after: '{"name":"Notice","value":"x"}',
  status: 200,
  ...overrides,
});

describe.each(storageKinds())('the audit hash chain on %s', (kind) => {
  let database: TestDatabase;
  let servers: TestServer[];
  let root: LoggedIn;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // Two instances on one database; SQLite is one instance (a second connection in this same thread
    // would wait synchronously on the first's write lock), its appends serialised on its one connection.
    servers = [await startTestServer({ database })];
    if (kind !== 'sqlite') servers.push(await startTestServer({ database, env: { NODE_TYPE: 'slave' } }));
    root = await setupRootAndLogin(servers[0]!);
  });
  afterAll(async () => {
    for (const server of (servers ?? []).reverse()) await server.stop();
    await database?.drop();
  });

  const db = () => servers[0]!.ctx.storage.db;
  const verifyApi = async () => (await root.client.get('/api/audit/verify')).body.data;

  it('concurrent appends (from two instances on PostgreSQL and MySQL) form one unforked chain that verifies', async () => {
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        appendAuditEntry(servers[index % servers.length]!.ctx.storage, entry({ entity_id: `k${index}` })),
      ),
    );
    await Promise.all(Array.from({ length: 10 }, (_, index) => root.client.put('/api/option/', { key: 'Notice', value: `n${index}` })));
    const rows = await db().selectFrom('audit_logs').select(['id', 'prev_hash', 'hash']).orderBy('id').execute();
    expect(rows.length).toBeGreaterThanOrEqual(51);
    expect(new Set(rows.map((row) => row.prev_hash)).size).toBe(rows.length);
    expect(await verifyAuditChain(servers[servers.length - 1]!.ctx.storage)).toEqual({ ok: true, checked: rows.length });
    expect(await verifyApi()).toEqual({ ok: true, checked: rows.length });
    const command = await verifyCommand(database);
    expect(command).toEqual({ code: 0, out: `OK: ${rows.length} audit entries verified\n` });
  }, 60_000);

  it('retention removes old entries from the oldest end only, and what is kept still verifies', async () => {
    const now = Math.floor(Date.now() / 1000);
    const before = await db()
      .selectFrom('audit_logs')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    // Old entries are backdated in place of the first ten, so they sit at the oldest end of the chain.
    const oldest = await db().selectFrom('audit_logs').selectAll().orderBy('id').limit(10).execute();
    expect(await runAuditRetention(servers[0]!.ctx, { force: true })).toBeNull();
    await servers[0]!.ctx.options.set('AuditLogRetentionDays', '30');
    // Rewriting created_at breaks those rows' hashes; retention removes exactly them, so the rest verifies.
    for (const row of oldest)
      await db()
        .updateTable('audit_logs')
        .set({ created_at: now - 40 * day })
        .where('id', '=', row.id)
        .execute();
    expect(await runAuditRetention(servers[0]!.ctx, { force: true })).toBe(10);
    const after = await db()
      .selectFrom('audit_logs')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) - 10);
    expect((await verifyAuditChain(servers[0]!.ctx.storage)).ok).toBe(true);
    // Not due again within the day.
    expect(await runAuditRetention(servers[0]!.ctx)).toBeNull();
  });

  it('an edited row, a row deleted in the middle or at either end are each detected', async () => {
    const rows = await db().selectFrom('audit_logs').selectAll().orderBy('id').execute();
    const middle = rows[Math.floor(rows.length / 2)]!;
    const next = rows[Math.floor(rows.length / 2) + 1]!;
    await db().updateTable('audit_logs').set({ after: '{"name":"Notice","value":"forged"}' }).where('id', '=', middle.id).execute();
    expect(await verifyAuditChain(servers[0]!.ctx.storage)).toMatchObject({ ok: false, brokenId: Number(middle.id), reason: 'edited' });
    expect(await verifyApi()).toMatchObject({ ok: false, brokenId: Number(middle.id) });
    const command = await verifyCommand(database);
    expect(command.code).toBe(1);
    expect(command.out).toContain(`BROKEN at entry ${Number(middle.id)}: edited`);
    await db().updateTable('audit_logs').set({ after: middle.after }).where('id', '=', middle.id).execute();
    expect((await verifyAuditChain(servers[0]!.ctx.storage)).ok).toBe(true);

    await db().deleteFrom('audit_logs').where('id', '=', middle.id).execute();
    expect(await verifyAuditChain(servers[0]!.ctx.storage)).toMatchObject({ ok: false, brokenId: Number(next.id), reason: 'unlinked' });
    await db().insertInto('audit_logs').values(middle).execute();
    expect((await verifyAuditChain(servers[0]!.ctx.storage)).ok).toBe(true);

    const newest = rows[rows.length - 1]!;
    await db().deleteFrom('audit_logs').where('id', '=', newest.id).execute();
    expect(await verifyAuditChain(servers[0]!.ctx.storage)).toMatchObject({
      ok: false,
      reason: 'newest_missing',
      brokenId: Number(rows[rows.length - 2]!.id),
    });
    await db().insertInto('audit_logs').values(newest).execute();

    await db().deleteFrom('audit_logs').where('id', '=', rows[0]!.id).execute();
    expect(await verifyAuditChain(servers[0]!.ctx.storage)).toMatchObject({ ok: false, brokenId: Number(rows[1]!.id), reason: 'unlinked' });
  }, 60_000);
});
