import type { AppContext } from '../../context.js';

const batchSize = 1000;

/**
 * DELETE /api/log/: removes logs created before the target, 1000 rows per statement so a huge
 * table is never locked for long; returns how many were removed.
 */
export async function deleteLogsBefore(ctx: AppContext, targetTimestamp: number): Promise<number> {
  const db = ctx.storage.db;
  let removed = 0;
  for (;;) {
    const rows = await db
      .selectFrom('logs')
      .select('id')
      .where('created_at', '<', targetTimestamp)
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (rows.length === 0) break;
    const result = await db
      .deleteFrom('logs')
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .executeTakeFirst();
    removed += Number(result.numDeletedRows);
    if (rows.length < batchSize) break;
    // Between batches the event loop serves requests.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return removed;
}
