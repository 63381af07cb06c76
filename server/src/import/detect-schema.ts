import type { Source } from './source.js';

/** The gateway that wrote the source database. */
export type SourceFlavor = 'one-api' | 'new-api' | 'new-api-2025';

export const flavorNames: Record<SourceFlavor, string> = {
  'one-api': 'one-api',
  'new-api': 'new-api (before its 2025 schema changes)',
  'new-api-2025': 'new-api (2025 schema: channel_info, settings)',
};

export interface SourceSchema {
  flavor: SourceFlavor;
  /** Table name to its column names, as found. */
  tables: Map<string, Set<string>>;
  has(table: string, column?: string): boolean;
}

/** Refusal of a database that neither one-api nor new-api wrote. */
export class UnknownSchemaError extends Error {}

const required = ['users', 'tokens', 'channels', 'options'];

/**
 * Tells one-api from new-api by columns only they have (read from both projects' GORM models):
 * new-api's users carry aff_count/aff_history; its 2025 channels add channel_info and settings;
 * one-api's channels carry config, its users lark_id, its tokens models/subnet.
 */
export async function detectSchema(source: Source): Promise<SourceSchema> {
  const found = await source.db.introspection.getTables();
  const tables = new Map<string, Set<string>>();
  for (const table of found) {
    if (table.isView) continue;
    tables.set(table.name.toLowerCase(), new Set(table.columns.map((column) => column.name.toLowerCase())));
  }
  const has = (table: string, column?: string) => {
    const columns = tables.get(table);
    return columns !== undefined && (column === undefined || columns.has(column));
  };
  const missing = required.filter((table) => !has(table));
  const refuse = (why: string) =>
    new UnknownSchemaError(`${source.label} is not a one-api or new-api database: ${why}. Nothing was imported.`);
  if (missing.length === required.length) throw refuse(`it has none of the tables ${required.join(', ')}`);
  if (missing.length > 0) throw refuse(`table(s) ${missing.join(', ')} missing`);
  if (has('users', 'aff_history_quota') && has('setups')) throw refuse('it is a ModelGate database (users.aff_history_quota)');
  for (const [table, columns] of [
    ['users', ['id', 'username', 'password', 'quota']],
    ['tokens', ['id', 'key', 'user_id', 'remain_quota']],
    ['channels', ['id', 'type', 'key', 'models']],
  ] as const) {
    const lacking = columns.filter((column) => !has(table, column));
    if (lacking.length > 0) throw refuse(`${table} lacks ${lacking.join(', ')}`);
  }
  let flavor: SourceFlavor;
  if (has('users', 'aff_count') || has('users', 'aff_history')) {
    flavor = has('channels', 'channel_info') || has('channels', 'settings') ? 'new-api-2025' : 'new-api';
  } else if (
    has('channels', 'config') ||
    has('users', 'lark_id') ||
    has('tokens', 'subnet') ||
    has('tokens', 'models') ||
    !has('tokens', 'model_limits')
  ) {
    flavor = 'one-api';
  } else {
    throw refuse("its users table has neither new-api's invite columns nor one-api's columns");
  }
  return { flavor, tables, has };
}
