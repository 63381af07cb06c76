import type { ImportContext } from './context.js';
import type { Clash } from './report.js';
import { rootRole } from './root-pair.js';
import { naturalOf, type StoredRow } from './row-diff.js';
import type { IdTable, TableMapper, TargetRow } from './table-import.js';

/**
 * How a clash is told: which source row, which ModelGate row, which columns differ (names only:
 * values can be password hashes or keys), and what resolves it.
 */

const columnList = (columns: string[]) => (columns.length > 8 ? `${columns.slice(0, 8).join(', ')}, …` : columns.join(', '));

function nameOf<T extends IdTable>(mapper: TableMapper<T>, row: Record<string, unknown>): string {
  return mapper.nameColumn ? String(row[mapper.nameColumn] ?? '') : '';
}

function labelOf<T extends IdTable>(mapper: TableMapper<T>, stored: StoredRow): string {
  const name = nameOf(mapper, stored);
  return `${mapper.noun} ${stored.id}${name ? ` (${name})` : ''}`;
}

const isRoot = (row: Record<string, unknown>) => Number(row.role ?? 0) >= rootRole && (row.deleted_at ?? null) === null;

const takeRootHint =
  "--take-source-root makes the source's root ModelGate's root (its username, password, balance and settings replace those of ModelGate's root)";
const changeHint = 'change or delete one of the two (in the old console or in ModelGate) and run again';

/** The source row's id is ModelGate's, for a row with other data. */
export function clashOfId<T extends IdTable>(
  mapper: TableMapper<T>,
  row: TargetRow<T>,
  stored: StoredRow,
  differing: string[],
  ctx: ImportContext,
): Clash {
  const id = String(row.id);
  const name = nameOf(mapper, row);
  const isUsers = mapper.target === 'users';
  if (isUsers && ctx.root.isTakenOver && stored.id === ctx.root.target!.id) {
    return {
      id,
      name,
      reason: `id ${row.id} is ModelGate's root (${String(stored.username)}), which the source's root replaces`,
      hint: '--remap-ids imports it under a new id',
    };
  }
  const key = mapper.naturalKey as string;
  const sameKey = naturalOf(row[key as keyof typeof row], ctx.target.kind);
  const isSameIdentity =
    (mapper.uniqueColumns as string[] | undefined)?.includes(key) && sameKey !== '' && sameKey === naturalOf(stored[key], ctx.target.kind);
  const areRoots = isUsers && isRoot(row) && isRoot(stored);
  if (isSameIdentity) {
    return {
      id,
      name,
      reason: `ModelGate's ${labelOf(mapper, stored)} has the same id and ${key} but differs in ${columnList(differing)}`,
      hint: areRoots
        ? takeRootHint
        : `a new id cannot help, the ${key} is unique. If it is this row, changed in ModelGate since an earlier import, do not import again; otherwise ${changeHint}`,
    };
  }
  return {
    id,
    name,
    reason: `id ${row.id} is ModelGate's ${labelOf(mapper, stored)}, a different ${mapper.noun} (differs in ${columnList(differing)})`,
    hint: areRoots ? takeRootHint : '--remap-ids imports it under a new id',
  };
}

/** One of the source row's unique values (username, key, …) is held by another ModelGate row. */
export function clashOfUnique<T extends IdTable>(
  mapper: TableMapper<T>,
  row: TargetRow<T>,
  column: string,
  stored: StoredRow,
  differing: string[],
  ctx: ImportContext,
): Clash {
  const id = String(row.id);
  const name = nameOf(mapper, row);
  let reason = `its ${column} is already ModelGate's ${labelOf(mapper, stored)}`;
  if (mapper.target === 'tokens') {
    const userId = Number((row as unknown as TargetRow<'tokens'>).user_id);
    reason +=
      Number(stored.user_id) === userId
        ? ` of the same user ${userId}`
        : ` of user ${String(stored.user_id)}, where this token belongs to user ${userId}`;
  }
  reason += ` (differs in ${columnList(differing)})`;
  const areRoots = mapper.target === 'users' && isRoot(row) && isRoot(stored) && !ctx.root.isTakenOver;
  const hint = areRoots
    ? takeRootHint
    : mapper.target === 'tokens'
      ? 'a key is one token and stays with its user: delete the token in one of the two gateways and run again'
      : changeHint;
  return { id, name, reason, hint };
}

/** A root of the source would be a second root next to ModelGate's (the setup page's). */
export function secondRootClash<T extends IdTable>(row: TargetRow<T>, target: { id: number; username: string }): Clash {
  return {
    id: String(row.id),
    name: String((row as unknown as TargetRow<'users'>).username),
    reason: `it is the source's root, and ModelGate already has a root (user ${target.id}, ${target.username}); the import does not make a second one`,
    hint: takeRootHint,
  };
}
