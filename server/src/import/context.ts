import type { Storage } from '../db/index.js';
import type { SourceSchema } from './detect-schema.js';
import type { IdPlan } from './id-plan.js';
import type { RootPair } from './root-pair.js';
import type { Source } from './source.js';

/**
 * The two passes over the source: `check` reads everything and decides where each row goes (a
 * clash stops the import there, before anything is written); `write` reads it again and writes.
 */
export type ImportPass = 'check' | 'write';

export interface ImportOptions {
  dryRun: boolean;
  withLogs: boolean;
  withTasks: boolean;
  batchSize: number;
  /** --take-source-root: the source's root user takes the place of ModelGate's root (same row, its data). */
  takeSourceRoot?: boolean;
  /** --remap-ids: a row whose id ModelGate uses for another row is imported under a new id; references follow. */
  remapIds?: boolean;
  /** Told how far a long table is (logs): rows done of total, in which pass. */
  onProgress?: (table: string, done: number, total: number, pass: ImportPass) => void;
}

/** What every table step shares. */
export interface ImportContext {
  source: Source;
  schema: SourceSchema;
  target: Storage;
  /** False in a dry run on a database ModelGate never started on: treated as empty. */
  hasTargetTables: boolean;
  options: ImportOptions;
  pass: ImportPass;
  /** Where every source row lands (its own id, a new one, or a row already there); references follow it. */
  ids: IdPlan;
  /** The source's root and ModelGate's, when both exist. */
  root: RootPair;
  /**
   * Values of ModelGate's unique columns (username, key, …) that source rows read earlier in this
   * pass hold: `table.column` → value → source id. A later source row repeating one is rejected.
   */
  seen: Map<string, Map<string, number>>;
  /** Abilities made for the imported channels (in the check pass: that would be). */
  abilityCount: number;
}
