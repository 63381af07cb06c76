import type { Kysely } from 'kysely';
import type { ImportContext } from './context.js';
import type { IdTable } from './table-import.js';

/** The tables other rows point at: a reference to one of their rows follows that row's id. */
export type ReferencedTable = 'users' | 'tokens' | 'channels';
const referencedTables: ReferencedTable[] = ['users', 'tokens', 'channels'];

/** Changed while importing: what the check pass planned no longer holds. */
export class ImportPlanChangedError extends Error {}

async function maxId(db: Kysely<Record<string, Record<string, unknown>>>, table: string): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0) || 0;
}

/**
 * Where each source row lands in ModelGate. A row keeps its source id unless that id is taken:
 * then it is found already there under another id (a run with --remap-ids before), or with
 * --remap-ids it gets a new one, past the largest id on either side so it meets no source row.
 * The check pass fills the plan; the write pass follows it and fails if it no longer holds.
 */
export class IdPlan {
  /** Source id → ModelGate id of the users, tokens and channels in ModelGate after this run. */
  private readonly landed = new Map<ReferencedTable, Map<number, number>>(referencedTables.map((table) => [table, new Map()]));
  /** Source id → ModelGate id of rows of any table that are not under their own id. */
  private readonly moved = new Map<IdTable, Map<number, number>>();
  /** Source id → new id given with --remap-ids (the same on every call, so both passes agree). */
  private readonly given = new Map<IdTable, Map<number, number>>();

  /** The first of the new ids per table (references to missing rows at or past it would meet one). */
  private readonly firstNew: Map<IdTable, number>;

  constructor(
    /** ModelGate's ids before the run, of the referenced tables. */
    private readonly before = new Map<ReferencedTable, Set<number>>(),
    /** Per table: above the largest id of the source and of ModelGate. */
    private readonly next = new Map<IdTable, number>(),
  ) {
    this.firstNew = new Map(next);
  }

  static async create(
    ctx: Pick<ImportContext, 'source' | 'schema' | 'target' | 'hasTargetTables'>,
    tables: Array<{ source: string; target: IdTable }>,
  ): Promise<IdPlan> {
    const target = ctx.target.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const before = new Map<ReferencedTable, Set<number>>();
    for (const table of referencedTables) {
      const rows = ctx.hasTargetTables ? await target.selectFrom(table).select('id').execute() : [];
      before.set(table, new Set(rows.map((row) => Number(row.id))));
    }
    const next = new Map<IdTable, number>();
    for (const table of tables) {
      const sourceMax = ctx.schema.has(table.source) ? await maxId(ctx.source.db, table.source) : 0;
      const targetMax = ctx.hasTargetTables ? await maxId(target, table.target) : 0;
      next.set(table.target, Math.max(sourceMax, targetMax) + 1);
    }
    return new IdPlan(before, next);
  }

  /** Whether the source row is in ModelGate after this run (imported, or already there). */
  isImported(table: ReferencedTable, sourceId: number): boolean {
    return this.landed.get(table)!.has(sourceId);
  }

  /**
   * The id a reference to source row `sourceId` holds in ModelGate: where that row landed. A row
   * that is not imported (deleted in the source, or rejected) keeps its number only while no
   * ModelGate row has it or can get it; otherwise it would name someone else, and becomes 0.
   */
  refer(table: ReferencedTable, sourceId: number): number {
    if (sourceId <= 0) return sourceId;
    const landed = this.landed.get(table)!.get(sourceId);
    if (landed !== undefined) return landed;
    const isTaken = this.before.get(table)?.has(sourceId) === true || sourceId >= (this.firstNew.get(table) ?? Infinity);
    return isTaken ? 0 : sourceId;
  }

  /** A new id for a source row whose own id is taken. */
  newId(table: IdTable, sourceId: number): number {
    let given = this.given.get(table);
    if (!given) this.given.set(table, (given = new Map()));
    const known = given.get(sourceId);
    if (known !== undefined) return known;
    const id = this.next.get(table) ?? 1;
    this.next.set(table, id + 1);
    given.set(sourceId, id);
    return id;
  }

  /**
   * Records that a source row is in ModelGate under `targetId`. In the write pass the place must
   * be the one the check pass found: anything else means ModelGate's database changed meanwhile.
   */
  land(table: IdTable, sourceId: number, targetId: number, pass: 'check' | 'write'): void {
    const landed = this.landed.get(table as ReferencedTable);
    let moved = this.moved.get(table);
    if (!moved) this.moved.set(table, (moved = new Map()));
    if (pass === 'write') {
      const planned = landed?.get(sourceId) ?? moved.get(sourceId) ?? sourceId;
      if (planned !== targetId) {
        throw new ImportPlanChangedError(
          `${table} ${sourceId} was to land as ${planned} but lands as ${targetId}: ModelGate's database changed during the import`,
        );
      }
    }
    landed?.set(sourceId, targetId);
    if (targetId !== sourceId) moved.set(sourceId, targetId);
  }

  /** Forgets a row the write pass could not write (references to it must not point at its id). */
  unland(table: IdTable, sourceId: number): void {
    this.landed.get(table as ReferencedTable)?.delete(sourceId);
  }
}
