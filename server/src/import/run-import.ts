import { migrate, nowSeconds, type Storage } from '../db/index.js';
import type { ImportContext, ImportOptions } from './context.js';
import { detectSchema } from './detect-schema.js';
import { emptyTableReport, type ImportReport, type TableReport } from './report.js';
import type { Source } from './source.js';
import { importTable, type IdTable, type TableMapper } from './table-import.js';
import { channelsMapper } from './tables/channels.js';
import { logsMapper } from './tables/logs.js';
import { importOptions } from './tables/options.js';
import { redemptionsMapper } from './tables/redemptions.js';
import { midjourneysMapper, tasksMapper } from './tables/tasks.js';
import { tokensMapper } from './tables/tokens.js';
import { topUpsMapper } from './tables/top-ups.js';
import { usersMapper } from './tables/users.js';
import { text } from './values.js';

const rootRole = 100;

/** Refused target: a database with tables ModelGate's migrations did not make (the old gateway's own, say). */
export class ForeignTargetError extends Error {}

/**
 * Whether ModelGate's tables exist yet. A database holding other tables but no record of
 * ModelGate's migrations is refused: SQL_DSN pointing at the old gateway's database must not get
 * ModelGate's tables written into it.
 */
async function hasModelGateTables(target: Storage): Promise<boolean> {
  const names = new Set((await target.db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name));
  if (names.size > 0 && !names.has('kysely_migration')) {
    throw new ForeignTargetError(`ModelGate's database (SQL_DSN / SQLITE_PATH) already holds tables ModelGate did not create (${[...names].slice(0, 5).join(', ')}). Point it at a new, empty database. Nothing was imported.`);
  }
  return names.has('users') && names.has('setups');
}

async function idsOf(ctx: ImportContext, table: 'users' | 'channels'): Promise<Set<number>> {
  if (!ctx.hasTargetTables) return new Set();
  const rows = await ctx.target.db.selectFrom(table).select('id').execute();
  return new Set(rows.map((row) => Number(row.id)));
}

/** Abilities are rebuilt, never copied: the report says how many the channels make. */
async function abilitiesReport(ctx: ImportContext, channels: TableReport): Promise<TableReport> {
  const report = emptyTableReport('abilities');
  if (ctx.schema.has('abilities')) {
    const row = await ctx.source.db.selectFrom('abilities').select((eb) => eb.fn.countAll().as('count')).executeTakeFirst();
    report.read = Number(row?.count ?? 0);
  }
  report.notes.push(`not copied: rebuilt from the groups and models of the ${channels.imported} imported channel(s)`);
  report.imported = ctx.abilityCount;
  return report;
}

/**
 * The first run needs no setup wizard afterwards: the imported root is the administrator. A
 * database ModelGate already set up keeps its setup row.
 */
async function markSetupDone(ctx: ImportContext): Promise<void> {
  if (ctx.options.dryRun) return;
  const done = await ctx.target.db.selectFrom('setups').select('id').limit(1).executeTakeFirst();
  if (done) return;
  const root = await ctx.target.db.selectFrom('users').select('id').where('role', '=', rootRole).where('deleted_at', 'is', null).limit(1).executeTakeFirst();
  if (!root) return;
  let version = 'imported';
  if (ctx.schema.has('setups', 'version')) {
    const source = await ctx.source.db.selectFrom('setups').select('version').limit(1).executeTakeFirst();
    if (source) version = `${text(source.version).slice(0, 30)} (imported)`;
  }
  await ctx.target.db.insertInto('setups').values({ version, initialized_at: nowSeconds() }).execute();
}

/**
 * Imports a one-api or new-api database into ModelGate's database. A dry run reads both sides and
 * writes nothing (not even ModelGate's own tables); a real run creates them first if needed.
 */
export async function runImport(source: Source, target: Storage, options: ImportOptions): Promise<ImportReport> {
  const schema = await detectSchema(source);
  let hasTargetTables = await hasModelGateTables(target);
  if (!options.dryRun) {
    await migrate(target);
    hasTargetTables = true;
  }
  const ctx: ImportContext = { source, schema, target, hasTargetTables, options, userIds: new Set(), channelIds: new Set(), abilityCount: 0 };
  ctx.userIds = await idsOf(ctx, 'users');
  ctx.channelIds = await idsOf(ctx, 'channels');
  const tables: TableReport[] = [];
  const run = async <T extends IdTable>(mapper: TableMapper<T>) => {
    const report = await importTable(ctx, mapper);
    tables.push(report);
    return report;
  };

  await run(usersMapper);
  await markSetupDone(ctx);
  await run(tokensMapper);
  const channels = await run(channelsMapper);
  tables.push(await abilitiesReport(ctx, channels));
  const { report: optionsReport, unknown } = await importOptions(ctx);
  tables.push(optionsReport);
  await run(redemptionsMapper);
  if (schema.flavor !== 'one-api') await run(topUpsMapper);
  if (options.withTasks) {
    await run(tasksMapper);
    await run(midjourneysMapper);
  }
  if (options.withLogs) await run(logsMapper);
  return { source: source.label, flavor: schema.flavor, dryRun: options.dryRun, tables, unknownOptions: unknown };
}
