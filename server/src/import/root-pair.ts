import { sql } from 'kysely';
import type { ImportContext } from './context.js';
import type { TargetRow } from './table-import.js';
import { int, text } from './values.js';

/** new-api's and ModelGate's root role: the one super administrator. */
export const rootRole = 100;

/** Refused before anything is read further: the options asked for cannot be applied. */
export class ImportRefusedError extends Error {}

/** The source's root user and ModelGate's, as far as they exist. */
export interface RootPair {
  source: { id: number; username: string } | null;
  /** ModelGate's root before the import (the one the setup page made, say). */
  target: { id: number; username: string } | null;
  /** --take-source-root and both exist: the source's root lands on ModelGate's root's row. */
  isTakenOver: boolean;
  /** The check pass found ModelGate's root row to be overwritten with this (references not yet followed). */
  replacement: TargetRow<'users'> | null;
  /** The write pass has overwritten it. */
  isReplaced: boolean;
}

/**
 * Finds both roots. With --take-source-root the source must have exactly one root (not deleted)
 * and ModelGate at most one; with no root in ModelGate there is nothing to take over.
 */
export async function findRootPair(
  ctx: Pick<ImportContext, 'source' | 'schema' | 'target' | 'hasTargetTables' | 'options'>,
): Promise<RootPair> {
  let query = ctx.source.db
    .selectFrom('users')
    .select(['id', 'username'])
    .where('role', '>=', rootRole as never)
    .orderBy('id');
  if (ctx.schema.has('users', 'deleted_at')) query = query.where('deleted_at', 'is', null);
  const sourceRoots = (await query.execute()).map((row) => ({ id: int(row.id), username: text(row.username).trim() }));
  const targetRoots = ctx.hasTargetTables
    ? await ctx.target.db
        .selectFrom('users')
        .select(['id', 'username'])
        .where('role', '>=', rootRole)
        .where('deleted_at', 'is', null)
        .orderBy('id')
        .execute()
    : [];
  const take = ctx.options.takeSourceRoot === true;
  const names = (roots: Array<{ id: number; username: string }>) => roots.map((root) => `${root.id} (${root.username})`).join(', ');
  if (take && sourceRoots.length === 0)
    throw new ImportRefusedError('--take-source-root: the source has no root user (role 100). Nothing was imported.');
  if (take && sourceRoots.length > 1)
    throw new ImportRefusedError(
      `--take-source-root: the source has ${sourceRoots.length} root users (${names(sourceRoots)}); it takes one. Nothing was imported.`,
    );
  if (take && targetRoots.length > 1)
    throw new ImportRefusedError(
      `--take-source-root: ModelGate has ${targetRoots.length} root users (${names(targetRoots)}); it replaces one. Nothing was imported.`,
    );
  const source = sourceRoots[0] ?? null;
  const target = targetRoots[0] ? { id: Number(targetRoots[0].id), username: targetRoots[0].username } : null;
  return { source, target, isTakenOver: take && source !== null && target !== null, replacement: null, isReplaced: false };
}

/**
 * --take-source-root, in the write pass before any user is written: ModelGate's root row gets the
 * source's root's data (username, password, balance, bindings, settings …) and keeps its id, so
 * what ModelGate's root already owns (tokens made since setup) stays with the root. Its sessions
 * end: the password is another one now.
 */
export async function replaceRoot(ctx: ImportContext, followReferences: (row: TargetRow<'users'>) => TargetRow<'users'>): Promise<void> {
  const { root } = ctx;
  if (!root.isTakenOver || !root.replacement || ctx.options.dryRun) return;
  const { id, ...values } = followReferences({ ...root.replacement, id: root.target!.id });
  await ctx.target.db
    .updateTable('users')
    .set({ ...values, session_version: sql<number>`session_version + 1` })
    .where('id', '=', id)
    .execute();
  root.isReplaced = true;
}
