import { flavorNames, type SourceFlavor } from './detect-schema.js';

export interface RejectedRow {
  /** The row's id (or option key) in the source. */
  id: string;
  reason: string;
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
  /** What the source holds that ModelGate does not keep, and other remarks. */
  notes: string[];
}

export interface ImportReport {
  source: string;
  flavor: SourceFlavor;
  dryRun: boolean;
  tables: TableReport[];
  /** Source options ModelGate does not know: left behind. */
  unknownOptions: string[];
}

export function emptyTableReport(table: string): TableReport {
  return { table, read: 0, imported: 0, alreadyPresent: 0, rejected: [], notes: [] };
}

/** The report printed on the terminal. Secrets never appear: rows are named by id only. */
export function formatReport(report: ImportReport): string {
  const lines = [
    `Source: ${report.source}`,
    `Schema: ${flavorNames[report.flavor]}`,
    report.dryRun ? 'DRY RUN: nothing was written.' : 'Imported.',
    '',
    `${'table'.padEnd(14)}${'read'.padStart(10)}${report.dryRun ? '  would import' : '    imported'}${'  already there'}${'  rejected'.padStart(11)}`,
  ];
  for (const table of report.tables) {
    lines.push(`${table.table.padEnd(14)}${String(table.read).padStart(10)}${String(table.imported).padStart(14)}${String(table.alreadyPresent).padStart(15)}${String(table.rejected.length).padStart(11)}`);
  }
  for (const table of report.tables) {
    if (table.rejected.length === 0 && table.notes.length === 0) continue;
    lines.push('', `${table.table}:`);
    for (const note of table.notes) lines.push(`  note: ${note}`);
    for (const row of table.rejected) lines.push(`  cannot import ${table.table} ${row.id}: ${row.reason}`);
  }
  if (report.unknownOptions.length > 0) {
    lines.push('', `Options ModelGate does not know (not imported): ${report.unknownOptions.join(', ')}`);
  }
  return lines.join('\n');
}

/** Total rows that could not be imported. */
export const rejectedCount = (report: ImportReport): number =>
  report.tables.reduce((sum, table) => sum + table.rejected.length, 0);
