import { sql, type Insertable } from 'kysely';
import type { Database } from '../db/schema.js';
import { classifyRows } from './classify-rows.js';
import type { ImportContext } from './context.js';
import { ImportPlanChangedError, type ReferencedTable } from './id-plan.js';
import { emptyTableReport, type RejectedRow, type TableReport } from './report.js';
import type { SourceRow } from './source.js';
import { isSet } from './values.js';

export type IdTable = Exclude<keyof Database, 'options' | 'abilities'>;
export type TargetRow<T extends IdTable> = Insertable<Database[T]> & { id: number };
type ColumnOf<T extends IdTable> = keyof Database[T] & string;

/** How one source table becomes one ModelGate table. */
export interface TableMapper<T extends IdTable> {
  source: string;
  target: T;
  /** One row, as the report calls it ('user', 'token'). */
  noun: string;
  /** The column naming a row in the report (a username, a token's name), if any. */
  nameColumn?: ColumnOf<T>;
  /**
   * What tells the row from others besides its id (a username, a key, a log's time): a row whose
   * id is taken is looked for by it under another id (imported before with --remap-ids).
   */
  naturalKey: ColumnOf<T>;
  /** ModelGate's unique columns: a value another ModelGate row holds is a clash ('' never is). */
  uniqueColumns?: ColumnOf<T>[];
  /** Columns holding another row's id; they follow that row to where it lands. */
  references?: Partial<Record<ColumnOf<T>, ReferencedTable>>;
  /** Columns not compared with a row already there (derived, or not known yet in the check pass). */
  uncompared?: ColumnOf<T>[];
  /** Source columns ModelGate has no place for: the report says how many rows had them set. */
  droppedColumns?: string[];
  /** Remarks on a source row that is imported but loses something (counted per remark). */
  rowNotes?(row: SourceRow, ctx: ImportContext): string[];
  /** The ModelGate row (source id, source references), or the reason the row cannot be imported. */
  map(row: SourceRow, ctx: ImportContext): TargetRow<T> | string;
  /** Runs in the transaction of each written batch (channels rebuild their abilities). */
  afterWrite?(trx: ImportContext['target']['db'], ids: number[]): Promise<void>;
  /** Runs after each batch, in both passes, with the rows written (in the check pass: that would be). */
  onImported?(rows: TargetRow<T>[], ctx: ImportContext): void;
}

const insertChunk = 100;

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Driver messages can quote the offending value (a key); keep the constraint part only.
  return message
    .replace(/'[^']*'/g, "'…'")
    .replace(/\(([^)]*)\)=\(([^)]*)\)/g, '($1)=(…)')
    .slice(0, 200);
}

/** The row with its references moved to where the rows they name landed; counts the ones that became 0. */
export function followReferences<T extends IdTable>(
  ctx: ImportContext,
  mapper: TableMapper<T>,
  row: TargetRow<T>,
  lost?: Map<string, number>,
): TargetRow<T> {
  const out: Record<string, unknown> = { ...row };
  for (const [column, table] of Object.entries(mapper.references ?? {}) as Array<[string, ReferencedTable]>) {
    const value = Number(out[column] ?? 0);
    const landed = ctx.ids.refer(table, value);
    // A table naming its own rows (a user's inviter) knows where they all land only in the write pass.
    const isKnown = ctx.pass === 'write' || table !== mapper.target;
    if (landed === 0 && value > 0 && isKnown) lost?.set(column, (lost.get(column) ?? 0) + 1);
    out[column] = landed;
  }
  return out as TargetRow<T>;
}

/** Writes rows (with their final ids); returns the ids written. */
async function writeRows<T extends IdTable>(
  ctx: ImportContext,
  mapper: TableMapper<T>,
  rows: TargetRow<T>[],
  report: TableReport,
): Promise<Set<number>> {
  const write = (batch: TargetRow<T>[]) =>
    ctx.target.db.transaction().execute(async (trx) => {
      for (let i = 0; i < batch.length; i += insertChunk) {
        await trx
          .insertInto(mapper.target)
          .values(batch.slice(i, i + insertChunk) as never)
          .execute();
      }
      await mapper.afterWrite?.(
        trx,
        batch.map((row) => row.id),
      );
    });
  if (rows.length === 0) return new Set();
  try {
    await write(rows);
    return new Set(rows.map((row) => row.id));
  } catch {
    // One bad row must not cost the batch: write the rows one by one and report the ones that fail.
    const written = new Set<number>();
    const failures: RejectedRow[] = [];
    let lastError: unknown;
    for (const row of rows) {
      try {
        await write([row]);
        written.add(row.id);
      } catch (error) {
        lastError = error;
        failures.push({ id: String(row.id), reason: `the database refused it: ${messageOf(error)}` });
      }
    }
    // Every row failing is the database failing (connection lost, disk full), not the rows: stop.
    if (written.size === 0 && rows.length > 1) throw new Error(`writing ${mapper.target} failed: ${messageOf(lastError)}`);
    report.rejected.push(...failures);
    return written;
  }
}

/** PostgreSQL serials do not move when ids are given: set them past the largest id. */
async function advanceSequence(ctx: ImportContext, table: string): Promise<void> {
  if (ctx.target.kind !== 'postgres' || ctx.pass !== 'write') return;
  await sql`SELECT setval(pg_get_serial_sequence(${table}, 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM ${sql.table(table)}), false)`.execute(
    ctx.target.db,
  );
}

async function countRows(ctx: ImportContext, table: string): Promise<number> {
  const row = await ctx.source.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * Reads one table in id order, a batch at a time, and decides for each row (classify-rows.ts).
 * The check pass only counts and lists; the write pass writes each batch in one transaction.
 */
export async function importTable<T extends IdTable>(ctx: ImportContext, mapper: TableMapper<T>): Promise<TableReport> {
  const report = emptyTableReport(mapper.target);
  if (!ctx.schema.has(mapper.source)) {
    report.notes.push(`the source has no ${mapper.source} table`);
    return report;
  }
  const isWriting = ctx.pass === 'write';
  const total = await countRows(ctx, mapper.source);
  const dropped = new Map<string, number>();
  const remarks = new Map<string, number>();
  const lost = new Map<string, number>();
  let lastId: number | null = null;
  for (;;) {
    let query = ctx.source.db.selectFrom(mapper.source).selectAll().orderBy('id').limit(ctx.options.batchSize);
    if (lastId !== null) query = query.where('id', '>', lastId as never);
    const rows = await query.execute();
    if (rows.length === 0) break;
    lastId = Number(rows[rows.length - 1]!.id);
    if (!Number.isSafeInteger(lastId))
      throw new Error(`${mapper.source}.id holds a value that is not an integer id; nothing more of ${mapper.source} was read`);
    report.read += rows.length;

    const mapped: TargetRow<T>[] = [];
    /** As mapped, before references follow (the root's replacement follows them in the write pass). */
    const unfollowed: TargetRow<T>[] = [];
    for (const row of rows) {
      for (const column of mapper.droppedColumns ?? []) {
        if (isSet(row[column])) dropped.set(column, (dropped.get(column) ?? 0) + 1);
      }
      for (const note of mapper.rowNotes?.(row, ctx) ?? []) remarks.set(note, (remarks.get(note) ?? 0) + 1);
      const result = mapper.map(row, ctx);
      if (typeof result === 'string') report.rejected.push({ id: String(row.id), reason: result });
      else {
        unfollowed.push(result);
        mapped.push(followReferences(ctx, mapper, result, lost));
      }
    }
    const decisions = await classifyRows(ctx, mapper, mapped);
    const toWrite: TargetRow<T>[] = [];
    const sourceIdOf = new Map<number, number>();
    let replaced = 0;
    decisions.forEach((decision, i) => {
      const sourceId = mapped[i]!.id;
      switch (decision.kind) {
        case 'rejected':
          report.rejected.push({ id: String(sourceId), reason: decision.reason });
          break;
        case 'clash':
          if (isWriting)
            throw new ImportPlanChangedError(
              `${mapper.target} ${sourceId}: ${decision.clash.reason}; ModelGate's database changed during the import`,
            );
          report.clashes.push(decision.clash);
          // Nothing is written after a clash. The rows pointing at this one are checked as if it kept
          // its id, so the report lists the clash once, not again as each token of a clashing user.
          ctx.ids.land(mapper.target, sourceId, sourceId, ctx.pass);
          break;
        case 'present':
          report.alreadyPresent += 1;
          ctx.ids.land(mapper.target, sourceId, decision.id, ctx.pass);
          if (decision.id !== sourceId) report.moved.push([sourceId, decision.id]);
          break;
        case 'replace-root':
          // The write pass replaced ModelGate's root before the first user (root-pair.ts).
          if (!isWriting) ctx.root.replacement = unfollowed[i] as unknown as TargetRow<'users'>;
          replaced += 1;
          ctx.ids.land(mapper.target, sourceId, decision.row.id, ctx.pass);
          if (decision.row.id !== sourceId) report.moved.push([sourceId, decision.row.id]);
          break;
        case 'write':
          toWrite.push(decision.row);
          sourceIdOf.set(decision.row.id, sourceId);
      }
    });
    const written = isWriting ? await writeRows(ctx, mapper, toWrite, report) : new Set(toWrite.map((row) => row.id));
    for (const row of toWrite) {
      const sourceId = sourceIdOf.get(row.id)!;
      if (!written.has(row.id)) {
        ctx.ids.unland(mapper.target, sourceId);
        continue;
      }
      ctx.ids.land(mapper.target, sourceId, row.id, ctx.pass);
      if (row.id !== sourceId) report.moved.push([sourceId, row.id]);
    }
    report.imported += written.size + replaced;
    mapper.onImported?.(
      toWrite.filter((row) => written.has(row.id)),
      ctx,
    );
    ctx.options.onProgress?.(mapper.target, report.read, total, ctx.pass);
    if (rows.length < ctx.options.batchSize) break;
  }
  for (const [remark, count] of remarks) report.notes.push(`${count} row(s): ${remark}`);
  for (const [column, count] of dropped)
    report.notes.push(`${count} row(s) have ${mapper.source}.${column} set; ModelGate has no such field, it is not carried over`);
  const references = (mapper.references ?? {}) as Record<string, ReferencedTable>;
  for (const [column, count] of lost) {
    report.notes.push(
      `${count} row(s): ${column} named a row of ${references[column]} that is not imported, whose id ModelGate gives another; set to 0`,
    );
  }
  await advanceSequence(ctx, mapper.target);
  return report;
}
