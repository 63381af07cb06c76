import type { Kysely } from 'kysely';
import { clashOfId, clashOfUnique, secondRootClash } from './clash-text.js';
import type { ImportContext } from './context.js';
import type { Clash } from './report.js';
import { rootRole } from './root-pair.js';
import { differingColumns, naturalOf, type StoredRow } from './row-diff.js';
import type { IdTable, TableMapper, TargetRow } from './table-import.js';

/** What happens to one source row. */
export type Decision<T extends IdTable> =
  /** Written under `row.id` (its own id, or a new one with --remap-ids). */
  | { kind: 'write'; row: TargetRow<T> }
  /** --take-source-root: ModelGate's root row (`row.id`) gets this row's data. */
  | { kind: 'replace-root'; row: TargetRow<T> }
  /** The same row is in ModelGate already, under `id` (a run before). */
  | { kind: 'present'; id: number }
  | { kind: 'clash'; clash: Clash }
  | { kind: 'rejected'; reason: string };

interface Lookup {
  byId: Map<number, StoredRow>;
  /** column → value (as the database compares it) → ModelGate's row holding it. */
  byUnique: Map<string, Map<string, StoredRow>>;
  /** Value of the natural key → ModelGate's rows holding it (non-unique keys: channel name, log time). */
  byNatural: Map<string, StoredRow[]>;
}

async function storedRows(ctx: ImportContext, table: string, column: string, values: unknown[]): Promise<StoredRow[]> {
  if (!ctx.hasTargetTables || values.length === 0) return [];
  const db = ctx.target.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const rows: Array<Record<string, unknown>> = [];
  for (let i = 0; i < values.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom(table)
        .selectAll()
        .where(column, 'in', values.slice(i, i + 500) as never)
        .execute()),
    );
  }
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

const uniqueOf = <T extends IdTable>(mapper: TableMapper<T>): string[] => (mapper.uniqueColumns ?? []) as string[];

/**
 * A later source row repeating a unique value of an earlier one (two source users bound to one
 * GitHub account, say): ModelGate keeps such a value once, so the later row is rejected.
 */
function repeatsEarlierRow<T extends IdTable>(ctx: ImportContext, mapper: TableMapper<T>, row: TargetRow<T>): string | null {
  const values = uniqueOf(mapper)
    .map((column) => [column, naturalOf(row[column as keyof typeof row], ctx.target.kind)] as const)
    .filter(([, value]) => value !== '');
  for (const [column, value] of values) {
    const earlier = ctx.seen.get(`${mapper.target}.${column}`)?.get(value);
    if (earlier !== undefined && earlier !== row.id) return `its ${column} repeats the one of ${mapper.noun} ${earlier} in the source`;
  }
  for (const [column, value] of values) {
    const key = `${mapper.target}.${column}`;
    if (!ctx.seen.has(key)) ctx.seen.set(key, new Map());
    ctx.seen.get(key)!.set(value, row.id);
  }
  return null;
}

/**
 * Decides where each source row of a batch goes (ids are the source's, references already follow
 * their rows). A row is already there when ModelGate holds it with the same data; a row meeting a
 * different ModelGate row, by id or by a unique value, is a clash, unless an option resolves it.
 */
export async function classifyRows<T extends IdTable>(
  ctx: ImportContext,
  mapper: TableMapper<T>,
  rows: TargetRow<T>[],
): Promise<Decision<T>[]> {
  const kind = ctx.target.kind;
  const table = mapper.target as string;
  const natural = (row: Record<string, unknown>, column: string) => naturalOf(row[column], kind);
  const { root } = ctx;
  const isUsers = mapper.target === 'users';
  const rootTargetId = isUsers && root.isTakenOver ? root.target!.id : undefined;
  const isSourceRoot = (row: TargetRow<T>) => rootTargetId !== undefined && row.id === root.source!.id;

  const lookup: Lookup = { byId: new Map(), byUnique: new Map(), byNatural: new Map() };
  const ids = rows.map((row) => row.id);
  if (rootTargetId !== undefined) ids.push(rootTargetId);
  for (const stored of await storedRows(ctx, table, 'id', ids)) lookup.byId.set(stored.id, stored);
  for (const column of uniqueOf(mapper)) {
    const values = [...new Set(rows.map((row) => String(row[column as keyof typeof row] ?? '')).filter((value) => value.trim() !== ''))];
    const found = new Map<string, StoredRow>();
    for (const stored of await storedRows(ctx, table, column, values)) found.set(natural(stored, column), stored);
    lookup.byUnique.set(column, found);
  }
  const differs = (row: TargetRow<T>, stored: StoredRow) => differingColumns(row, stored, (mapper.uncompared ?? []) as string[]);
  const isIdTaken = (row: TargetRow<T>) =>
    row.id === rootTargetId || (lookup.byId.has(row.id) && differs(row, lookup.byId.get(row.id)!).length > 0);
  const naturalKey = mapper.naturalKey as string;
  if (!uniqueOf(mapper).includes(naturalKey)) {
    const values = [
      ...new Set(rows.filter((row) => !isSourceRoot(row) && isIdTaken(row)).map((row) => row[naturalKey as keyof typeof row])),
    ];
    for (const stored of await storedRows(ctx, table, naturalKey, values)) {
      const key = natural(stored, naturalKey);
      lookup.byNatural.set(key, [...(lookup.byNatural.get(key) ?? []), stored]);
    }
  }

  /** The ModelGate row (not `ownId`'s) holding one of the row's unique values, with the column. */
  const uniqueTaken = (row: TargetRow<T>, ownId: number) => {
    for (const column of uniqueOf(mapper)) {
      const stored = lookup.byUnique.get(column)!.get(natural(row, column));
      // ModelGate's root being replaced gives up its values: the source root's take their place.
      if (stored && stored.id !== ownId && stored.id !== rootTargetId) return { column, stored };
    }
    return null;
  };
  /** The same row under another id: imported before under a new id. */
  const twinOf = (row: TargetRow<T>) => {
    const key = natural(row, naturalKey);
    const candidates = uniqueOf(mapper).includes(naturalKey)
      ? [lookup.byUnique.get(naturalKey)!.get(key)]
      : (lookup.byNatural.get(key) ?? []);
    return candidates.find(
      (stored) => stored !== undefined && stored.id !== row.id && stored.id !== rootTargetId && differs(row, stored).length === 0,
    );
  };
  const isLiveRoot = (row: TargetRow<T>) => {
    const user = row as unknown as TargetRow<'users'>;
    return isUsers && Number(user.role ?? 0) >= rootRole && user.deleted_at == null;
  };
  /** Written as `id`, unless it would make a second root next to ModelGate's. */
  const write = (row: TargetRow<T>, id: number): Decision<T> => {
    if (isLiveRoot(row) && root.target && !isSourceRoot(row)) return { kind: 'clash', clash: secondRootClash(row, root.target) };
    return { kind: 'write', row: { ...row, id } };
  };

  return rows.map((row): Decision<T> => {
    const repeated = repeatsEarlierRow(ctx, mapper, row);
    if (repeated) return { kind: 'rejected', reason: repeated };
    if (isSourceRoot(row)) {
      const stored = lookup.byId.get(rootTargetId!)!;
      // In the write pass the row was overwritten before the first user (it now reads the same).
      if (root.isReplaced) return { kind: 'replace-root', row: { ...row, id: rootTargetId! } };
      if (differs(row, stored).length === 0) return { kind: 'present', id: rootTargetId! };
      const taken = uniqueTaken(row, rootTargetId!);
      if (taken) return { kind: 'clash', clash: clashOfUnique(mapper, row, taken.column, taken.stored, differs(row, taken.stored), ctx) };
      return { kind: 'replace-root', row: { ...row, id: rootTargetId! } };
    }
    const stored = lookup.byId.get(row.id);
    if (!isIdTaken(row)) {
      if (stored) return { kind: 'present', id: row.id };
      const taken = uniqueTaken(row, row.id);
      if (!taken) return write(row, row.id);
      if (differs(row, taken.stored).length === 0) return { kind: 'present', id: taken.stored.id };
      return { kind: 'clash', clash: clashOfUnique(mapper, row, taken.column, taken.stored, differs(row, taken.stored), ctx) };
    }
    const twin = twinOf(row);
    if (twin) return { kind: 'present', id: twin.id };
    if (!ctx.options.remapIds) return { kind: 'clash', clash: clashOfId(mapper, row, stored!, differs(row, stored!), ctx) };
    const id = ctx.ids.newId(mapper.target, row.id);
    const taken = uniqueTaken(row, id);
    if (taken) return { kind: 'clash', clash: clashOfUnique(mapper, row, taken.column, taken.stored, differs(row, taken.stored), ctx) };
    return write(row, id);
  });
}
