import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStorage } from '../../src/db/index.js';
import { createTestDatabase } from '../helpers/test-storage.js';

describe.skipIf(!process.env.TEST_POSTGRES_DSN)('PostgreSQL connection loss', () => {
  it('survives the server terminating pooled connections and reconnects on the next query', async () => {
    const database = await createTestDatabase('postgres');
    const idleErrors: Error[] = [];
    const storage = openStorage({
      kind: 'postgres',
      dsn: database.dsn,
      sqlitePath: '',
      poolSize: 3,
      onIdleError: (error) => idleErrors.push(error),
    });
    try {
      await Promise.all([1, 2, 3].map(() => storage.db.selectNoFrom((eb) => eb.val(1).as('one')).execute()));
      const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_DSN });
      await admin.connect();
      const name = new URL(database.dsn).pathname.slice(1);
      const terminated = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      await admin.end();
      expect(terminated.rowCount).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(idleErrors.length).toBeGreaterThan(0);
      const row = await storage.db.selectNoFrom((eb) => eb.val(42).as('answer')).executeTakeFirstOrThrow();
      expect(Number(row.answer)).toBe(42);
    } finally {
      await storage.close();
      await database.drop();
    }
  });
});
