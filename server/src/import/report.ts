import { flavorNames, type SourceFlavor } from './detect-schema.js';

export interface RejectedRow {
  /** The row's id (or option key) in the source. */
  id: string;
  reason: string;
}

/** A source row that meets a different row in ModelGate: the import stops before writing. */
export interface Clash {
  /** The row's id in the source. */
  id: string;
  /** Its name (a username, a token's name), '' when it has none. */
  name: string;
  /** Which ModelGate row it meets, and how they differ (column names, never values). */
  reason: string;
  /** What resolves it: an option, or a change the operator makes. */
  hint: string;
}

export interface TableReport {
  table: string;
  /** Rows read from the source. */
  read: number;
  /** Rows written (in a dry run: that would be written). */
  imported: number;
  /** Rows whose identity is already in ModelGate (a previous run): not written again. */
  alreadyPresent: number;
  rejected: RejectedRow[];
  /** Rows that meet a different row in ModelGate (only the check pass finds them; then nothing is written). */
  clashes: Clash[];
  /** Source id → ModelGate id of the rows that are not under their own id. */
  moved: Array<[number, number]>;
  /** What the source holds that ModelGate does not keep, and other remarks. */
  notes: string[];
}

export interface ImportReport {
  source: string;
  flavor: SourceFlavor;
  dryRun: boolean;
  /** Rows clash with ModelGate's (listed per table): nothing was written. */
  refused: boolean;
  tables: TableReport[];
  /** Source options ModelGate does not know: left behind. */
  unknownOptions: string[];
}

export function emptyTableReport(table: string): TableReport {
  return { table, read: 0, imported: 0, alreadyPresent: 0, rejected: [], clashes: [], moved: [], notes: [] };
}

/** Tables whose full id mapping is printed: other rows point at their ids. */
const mappedInFull = new Set(['users', 'tokens', 'channels']);
const mappingShown = 20;

function mappingLines(table: TableReport): string[] {
  if (table.moved.length === 0) return [];
  const shown = mappedInFull.has(table.table) ? table.moved : table.moved.slice(0, mappingShown);
  const more = table.moved.length - shown.length;
  return [
    `  under another id (source id → ModelGate id): ${shown.map(([from, to]) => `${from} → ${to}`).join(', ')}${more > 0 ? `, and ${more} more` : ''}`,
  ];
}

/** The report printed on the terminal. Secrets never appear: rows are named by id, name and column names only. */
export function formatReport(report: ImportReport): string {
  const isPlan = report.dryRun || report.refused;
  const status = report.refused
    ? 'REFUSED: rows clash with rows already in ModelGate (listed below). Nothing was written.'
    : report.dryRun
      ? 'DRY RUN: nothing was written.'
      : 'Imported.';
  const lines = [
    `Source: ${report.source}`,
    `Schema: ${flavorNames[report.flavor]}`,
    status,
    '',
    `${'table'.padEnd(14)}${'read'.padStart(10)}${isPlan ? '  would import' : '    imported'}${'  already there'}${'  rejected'.padStart(11)}${report.refused ? '  clashes' : ''}`,
  ];
  for (const table of report.tables) {
    const clashes = report.refused ? String(table.clashes.length).padStart(9) : '';
    lines.push(
      `${table.table.padEnd(14)}${String(table.read).padStart(10)}${String(table.imported).padStart(14)}${String(table.alreadyPresent).padStart(15)}${String(table.rejected.length).padStart(11)}${clashes}`,
    );
  }
  for (const table of report.tables) {
    const details = [
      ...table.notes.map((note) => `  note: ${note}`),
      ...mappingLines(table),
      ...table.rejected.map((row) => `  cannot import ${table.table} ${row.id}: ${row.reason}`),
      ...table.clashes.map(
        (clash) =>
          `  clash: ${table.table} ${clash.id}${clash.name ? ` (${clash.name})` : ''}: ${clash.reason}.\n    to resolve: ${clash.hint}.`,
      ),
    ];
    if (details.length > 0) lines.push('', `${table.table}:`, ...details);
  }
  if (report.unknownOptions.length > 0) {
    lines.push('', `Options ModelGate does not know (not imported): ${report.unknownOptions.join(', ')}`);
  }
  return lines.join('\n');
}

/** Total rows that could not be imported. */
export const rejectedCount = (report: ImportReport): number => report.tables.reduce((sum, table) => sum + table.rejected.length, 0);

/** Total rows that clash with ModelGate's. */
export const clashCount = (report: ImportReport): number => report.tables.reduce((sum, table) => sum + table.clashes.length, 0);
