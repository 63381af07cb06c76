import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ImportContext } from './context.js';
import { emptyTableReport, type RejectedRow, type TableReport } from './report.js';
import type { SourceRow } from './source.js';
import { isSet } from './values.js';

export type IdTable = Exclude<keyof Database, 'options' | 'abilities'>;
export type TargetRow<T extends IdTable> = Insertable<Database[T]> & { id: number };

/** How one source table becomes one ModelGate table. */
export interface TableMapper<T extends IdTable> {
  source: string;
  target: T;
  /**
   * The column that proves a target row with the same id is this row (a second run finds it and
   * skips it); with `isNaturalKeyUnique` also looked up by value, so a clash under another id is
   * reported instead of failing the batch.
   */
  naturalKey: keyof Database[T] & string;
  isNaturalKeyUnique: boolean;
  /** Source columns ModelGate has no place for: the report says how many rows had them set. */
  droppedColumns?: string[];
  /** Remarks on a source row that is imported but loses something (counted per remark). */
  rowNotes?(row: SourceRow, ctx: ImportContext): string[];
  /** The ModelGate row, or the reason the row cannot be imported. */
  map(row: SourceRow, ctx: ImportContext): TargetRow<T> | string;
  /** Runs in the transaction of each written batch (channels rebuild their abilities). */
  afterWrite?(trx: ImportContext['target']['db'], ids: number[]): Promise<void>;
  /** Runs after each batch, also in a dry run, with the rows imported (or that would be). */
  onImported?(rows: TargetRow<T>[], ctx: ImportContext): void;
}

const insertChunk = 100;

function naturalOf(value: unknown, kind: string): string {
  const out = String(value ?? '').trim();
  // MySQL compares with a case-insensitive collation: 'Bob' and 'bob' are one username there.
  return kind === 'mysql' ? out.toLowerCase() : out;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Driver messages can quote the offending value (a key); keep the constraint part only.
  return message.replace(/'[^']*'/g, "'…'").replace(/\(([^)]*)\)=\(([^)]*)\)/g, '($1)=(…)').slice(0, 200);
}

/** Rows with an id in `ids`, or whose natural key is one of `naturals`, as [id, natural]. */
async function findExisting<T extends IdTable>(ctx: ImportContext, mapper: TableMapper<T>, ids: number[], naturals: string[]) {
  const byId = new Map<number, string>();
  const byNatural = new Map<string, number>();
  if (!ctx.hasTargetTables || ids.length === 0) return { byId, byNatural };
  const db = ctx.target.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const column: string = mapper.naturalKey;
  const table = mapper.target as string;
  const rows = await db.selectFrom(table).select(['id', column]).where('id', 'in', ids).execute();
  for (const row of rows) byId.set(Number(row.id), naturalOf(row[column], ctx.target.kind));
  if (mapper.isNaturalKeyUnique && naturals.length > 0) {
    const clashing = await db.selectFrom(table).select(['id', column]).where(column, 'in', naturals).execute();
    for (const row of clashing) byNatural.set(naturalOf(row[column], ctx.target.kind), Number(row.id));
  }
  return { byId, byNatural };
}

async function writeRows<T extends IdTable>(ctx: ImportContext, mapper: TableMapper<T>, rows: TargetRow<T>[], report: TableReport): Promise<number[]> {
  const write = (batch: TargetRow<T>[]) => ctx.target.db.transaction().execute(async (trx) => {
    for (let i = 0; i < batch.length; i += insertChunk) {
      await trx.insertInto(mapper.target).values(batch.slice(i, i + insertChunk) as never).execute();
    }
    await mapper.afterWrite?.(trx, batch.map((row) => row.id));
  });
  try {
    await write(rows);
    return rows.map((row) => row.id);
  } catch {
    // One bad row must not cost the batch: write the rows one by one and report the ones that fail.
    const written: number[] = [];
    const failures: RejectedRow[] = [];
    let lastError: unknown;
    for (const row of rows) {
      try {
        await write([row]);
        written.push(row.id);
      } catch (error) {
        lastError = error;
        failures.push({ id: String(row.id), reason: `the database refused it: ${messageOf(error)}` });
      }
    }
    // Every row failing is the database failing (connection lost, disk full), not the rows: stop.
    if (written.length === 0 && rows.length > 1) throw new Error(`writing ${mapper.target} failed: ${messageOf(lastError)}`);
    report.rejected.push(...failures);
    return written;
  }
}

/** PostgreSQL serials do not move when ids are given: set them past the largest id. */
async function advanceSequence(ctx: ImportContext, table: string): Promise<void> {
  if (ctx.target.kind !== 'postgres' || ctx.options.dryRun) return;
  await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM ${sql.table(table)}), false)`.execute(ctx.target.db);
}

async function countRows(ctx: ImportContext, table: string): Promise<number> {
  const row = await ctx.source.db.selectFrom(table).select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * Copies one table in id order, one transaction per batch. Identity is the source id (kept, so
 * every reference between tables stays right without remapping); a target row with that id and the
 * same natural key is this row from an earlier run and is skipped.
 */
export async function importTable<T extends IdTable>(ctx: ImportContext, mapper: TableMapper<T>): Promise<TableReport> {
  const report = emptyTableReport(mapper.target);
  if (!ctx.schema.has(mapper.source)) {
    report.notes.push(`the source has no ${mapper.source} table`);
    return report;
  }
  const total = await countRows(ctx, mapper.source);
  const dropped = new Map<string, number>();
  const remarks = new Map<string, number>();
  let lastId: number | null = null;
  for (;;) {
    let query = ctx.source.db.selectFrom(mapper.source).selectAll().orderBy('id').limit(ctx.options.batchSize);
    if (lastId !== null) query = query.where('id', '>', lastId as never);
    const rows = await query.execute();
    if (rows.length === 0) break;
    lastId = Number(rows[rows.length - 1]!.id);
    if (!Number.isSafeInteger(lastId)) throw new Error(`${mapper.source}.id holds a value that is not an integer id; nothing more of ${mapper.source} was read`);
    report.read += rows.length;

    const mapped: TargetRow<T>[] = [];
    for (const row of rows) {
      for (const column of mapper.droppedColumns ?? []) {
        if (isSet(row[column])) dropped.set(column, (dropped.get(column) ?? 0) + 1);
      }
      for (const note of mapper.rowNotes?.(row, ctx) ?? []) remarks.set(note, (remarks.get(note) ?? 0) + 1);
      const result = mapper.map(row, ctx);
      if (typeof result === 'string') report.rejected.push({ id: String(row.id), reason: result });
      else mapped.push(result);
    }
    const naturals = mapped.map((row) => naturalOf(row[mapper.naturalKey as keyof typeof row], ctx.target.kind));
    const existing = await findExisting(ctx, mapper, mapped.map((row) => row.id), [...new Set(naturals)].filter((value) => value !== ''));
    const toWrite: TargetRow<T>[] = [];
    const seen = new Set<string>();
    mapped.forEach((row, i) => {
      const natural = naturals[i]!;
      const sameId = existing.byId.get(row.id);
      if (sameId !== undefined) {
        if (sameId === natural) report.alreadyPresent += 1;
        else report.rejected.push({ id: String(row.id), reason: `id ${row.id} is already used in ModelGate by a different ${mapper.target} row` });
        return;
      }
      if (mapper.isNaturalKeyUnique) {
        const otherId = existing.byNatural.get(natural);
        if (otherId !== undefined) {
          report.rejected.push({ id: String(row.id), reason: `its ${mapper.naturalKey} already exists in ModelGate (${mapper.target} id ${otherId})` });
          return;
        }
        if (seen.has(natural)) {
          report.rejected.push({ id: String(row.id), reason: `its ${mapper.naturalKey} repeats an earlier row's` });
          return;
        }
        seen.add(natural);
      }
      toWrite.push(row);
    });
    const writtenIds = new Set(ctx.options.dryRun ? toWrite.map((row) => row.id) : await writeRows(ctx, mapper, toWrite, report));
    report.imported += writtenIds.size;
    mapper.onImported?.(toWrite.filter((row) => writtenIds.has(row.id)), ctx);
    ctx.options.onProgress?.(mapper.target, report.read, total);
    if (rows.length < ctx.options.batchSize) break;
  }
  for (const [remark, count] of remarks) report.notes.push(`${count} row(s): ${remark}`);
  for (const [column, count] of dropped) report.notes.push(`${count} row(s) have ${mapper.source}.${column} set; ModelGate has no such field, it is not carried over`);
  await advanceSequence(ctx, mapper.target);
  return report;
}
