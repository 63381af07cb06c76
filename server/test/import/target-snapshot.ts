import type { Storage } from '../../src/db/index.js';

const written = [
  'users',
  'tokens',
  'channels',
  'abilities',
  'options',
  'redemptions',
  'top_ups',
  'logs',
  'tasks',
  'midjourneys',
  'setups',
] as const;

/** Every row of every table the import writes, in a stable order: equal before and after means nothing was written. */
export async function snapshotTarget(storage: Storage): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of written) {
    const rows = await storage.db.selectFrom(table).selectAll().execute();
    out[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return out;
}
