import type { Storage } from '../db/index.js';
import type { SourceSchema } from './detect-schema.js';
import type { Source } from './source.js';

export interface ImportOptions {
  dryRun: boolean;
  withLogs: boolean;
  withTasks: boolean;
  batchSize: number;
  /** Told how far a long table is (logs): rows done of total. */
  onProgress?: (table: string, done: number, total: number) => void;
}

/** What every table step shares. */
export interface ImportContext {
  source: Source;
  schema: SourceSchema;
  target: Storage;
  /** False in a dry run on a database ModelGate never started on: treated as empty. */
  hasTargetTables: boolean;
  options: ImportOptions;
  /** Users present in ModelGate after this run (already there or imported; in a dry run: would be). */
  userIds: Set<number>;
  channelIds: Set<number>;
  /** Abilities made for the imported channels (in a dry run: that would be). */
  abilityCount: number;
}
