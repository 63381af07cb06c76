import type { DatabaseKind } from '../config.js';

/** A row as ModelGate's database returns it. */
export type StoredRow = Record<string, unknown> & { id: number };

/**
 * A unique value as the database compares it: trimmed, and lower-cased on MySQL, whose collation
 * takes 'Bob' and 'bob' for one username. '' when empty (empty values never clash).
 */
export function naturalOf(value: unknown, kind: DatabaseKind): string {
  const out = String(value ?? '').trim();
  return kind === 'mysql' ? out.toLowerCase() : out;
}

function isSameValue(mapped: unknown, stored: unknown): boolean {
  if (mapped === null || mapped === undefined) return stored === null || stored === undefined;
  if (stored === null || stored === undefined) return false;
  if (typeof mapped === 'number') {
    const number = Number(stored);
    if (!Number.isFinite(number)) return false;
    // Doubles (a channel's balance, a top-up's money) may come back a rounding step away.
    return Number.isInteger(mapped) ? number === mapped : Math.abs(number - mapped) <= 1e-9 * Math.max(1, Math.abs(mapped));
  }
  return String(stored) === String(mapped);
}

/**
 * The columns in which ModelGate's row differs from the row the import would write (its id and
 * `ignored` aside). Column names only: values can be secrets (a password hash, a key).
 */
export function differingColumns(mapped: Record<string, unknown>, stored: StoredRow, ignored: readonly string[] = []): string[] {
  return Object.keys(mapped).filter(
    (column) => column !== 'id' && !ignored.includes(column) && !isSameValue(mapped[column], stored[column]),
  );
}
