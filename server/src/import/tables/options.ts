import { isOptionKey, validateOption } from '../../options/registry.js';
import type { ImportContext } from '../context.js';
import { emptyTableReport, type TableReport } from '../report.js';
import { text } from '../values.js';

/**
 * options: the keys ModelGate knows are copied when their value passes ModelGate's own check;
 * unknown keys are listed. An option already set in ModelGate keeps its value (a second run, or a
 * setting changed since), so importing never overwrites a choice made in ModelGate; the report
 * names the ones whose value differs.
 */
export async function importOptions(ctx: ImportContext): Promise<{ report: TableReport; unknown: string[] }> {
  const report = emptyTableReport('options');
  const unknown: string[] = [];
  const rows = await ctx.source.db.selectFrom('options').selectAll().execute();
  const existing = new Map<string, string>();
  if (ctx.hasTargetTables) {
    for (const row of await ctx.target.db.selectFrom('options').select(['key', 'value']).execute()) existing.set(row.key, row.value);
  }
  const kept: string[] = [];
  const toWrite: Array<{ key: string; value: string }> = [];
  for (const row of rows) {
    report.read += 1;
    const key = text(row.key);
    const value = text(row.value);
    if (!isOptionKey(key)) {
      unknown.push(key);
      continue;
    }
    const problem = validateOption(key, value);
    if (problem) {
      report.rejected.push({ id: key, reason: `ModelGate refuses its value: ${problem}` });
      continue;
    }
    if (!existing.has(key)) toWrite.push({ key, value });
    else {
      report.alreadyPresent += 1;
      if (existing.get(key) !== value) kept.push(key);
    }
  }
  if (kept.length > 0) report.notes.push(`set in ModelGate to another value, which is kept: ${kept.sort().join(', ')}`);
  if (ctx.pass === 'write' && toWrite.length > 0) {
    await ctx.target.db.transaction().execute(async (trx) => {
      for (let i = 0; i < toWrite.length; i += 100)
        await trx
          .insertInto('options')
          .values(toWrite.slice(i, i + 100))
          .execute();
    });
  }
  report.imported = toWrite.length;
  unknown.sort();
  return { report, unknown };
}
