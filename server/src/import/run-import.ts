import { migrate, nowSeconds, type Storage } from '../db/index.js';
import type { ImportContext, ImportOptions } from './context.js';
import { detectSchema } from './detect-schema.js';
import { IdPlan } from './id-plan.js';
import { emptyTableReport, type ImportReport, type TableReport } from './report.js';
import { findRootPair, replaceRoot, rootRole } from './root-pair.js';
import type { Source } from './source.js';
import { followReferences, importTable, type IdTable, type TableMapper } from './table-import.js';
import { channelsMapper } from './tables/channels.js';
import { logsMapper } from './tables/logs.js';
import { importOptions } from './tables/options.js';
import { redemptionsMapper } from './tables/redemptions.js';
import { midjourneysMapper, tasksMapper } from './tables/tasks.js';
import { tokensMapper } from './tables/tokens.js';
import { topUpsMapper } from './tables/top-ups.js';
import { usersMapper } from './tables/users.js';
import { text } from './values.js';

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
    throw new ForeignTargetError(
      `ModelGate's database (SQL_DSN / SQLITE_PATH) already holds tables ModelGate did not create (${[...names].slice(0, 5).join(', ')}). Point it at a new, empty database. Nothing was imported.`,
    );
  }
  return names.has('users') && names.has('setups');
}

/** Abilities are rebuilt, never copied: the report says how many the channels make. */
async function abilitiesReport(ctx: ImportContext, channels: TableReport): Promise<TableReport> {
  const report = emptyTableReport('abilities');
  if (ctx.schema.has('abilities')) {
    const row = await ctx.source.db
      .selectFrom('abilities')
      .select((eb) => eb.fn.countAll().as('count'))
      .executeTakeFirst();
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
  const done = await ctx.target.db.selectFrom('setups').select('id').limit(1).executeTakeFirst();
  if (done) return;
  const root = await ctx.target.db
    .selectFrom('users')
    .select('id')
    .where('role', '=', rootRole)
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  if (!root) return;
  let version = 'imported';
  if (ctx.schema.has('setups', 'version')) {
    const source = await ctx.source.db.selectFrom('setups').select('version').limit(1).executeTakeFirst();
    if (source) version = `${text(source.version).slice(0, 30)} (imported)`;
  }
  await ctx.target.db.insertInto('setups').values({ version, initialized_at: nowSeconds() }).execute();
}

/** What --take-source-root did (or would do). */
function rootNotes(ctx: ImportContext): string[] {
  const { root } = ctx;
  if (!ctx.options.takeSourceRoot) return [];
  if (!root.target) return ["--take-source-root: ModelGate has no root user; the source's root is imported like any user"];
  if (!root.replacement) return [];
  const verb = ctx.pass === 'check' ? 'takes' : 'took';
  return [
    `the source's root (user ${root.source!.id}, ${root.source!.username}) ${verb} the place of ModelGate's root (user ${root.target.id}, ${root.target.username}): that row now holds the old root's username, password, balance and settings, keeps what ModelGate's root owned (tokens made since setup), and its sessions end`,
  ];
}

type AnyMapper = TableMapper<IdTable>;

/** The copied tables, in the order they are read: a table's references point at tables before it. */
function mappersOf(ctx: Pick<ImportContext, 'schema' | 'options'>): AnyMapper[] {
  const mappers: unknown[] = [usersMapper, tokensMapper, channelsMapper, redemptionsMapper];
  if (ctx.schema.flavor !== 'one-api') mappers.push(topUpsMapper);
  if (ctx.options.withTasks) mappers.push(tasksMapper, midjourneysMapper);
  if (ctx.options.withLogs) mappers.push(logsMapper);
  return mappers as unknown as AnyMapper[];
}

/** One pass over every table; the options and the abilities are reported after the channels. */
async function runPass(ctx: ImportContext, mappers: AnyMapper[]): Promise<{ tables: TableReport[]; unknownOptions: string[] }> {
  const tables: TableReport[] = [];
  let unknownOptions: string[] = [];
  ctx.seen = new Map();
  ctx.abilityCount = 0;
  for (const mapper of mappers) {
    if (mapper.target === 'users' && ctx.pass === 'write') await replaceRoot(ctx, (row) => followReferences(ctx, usersMapper, row));
    const report = await importTable(ctx, mapper);
    tables.push(report);
    if (mapper.target === 'users') report.notes.push(...rootNotes(ctx));
    if (mapper.target === 'users' && ctx.pass === 'write') await markSetupDone(ctx);
    if (mapper.target === 'channels') {
      tables.push(await abilitiesReport(ctx, report));
      const options = await importOptions(ctx);
      tables.push(options.report);
      unknownOptions = options.unknown;
    }
  }
  return { tables, unknownOptions };
}

/**
 * Imports a one-api or new-api database into ModelGate's database in two passes. The check pass
 * reads everything and decides where each row goes; a row meeting a different row already in
 * ModelGate (a clash) stops the import there, before anything is written, unless an option
 * resolves it. The write pass then writes. A dry run is the check pass alone, and does not even
 * create ModelGate's tables.
 */
export async function runImport(source: Source, target: Storage, options: ImportOptions): Promise<ImportReport> {
  const schema = await detectSchema(source);
  let hasTargetTables = await hasModelGateTables(target);
  if (!options.dryRun) {
    await migrate(target);
    hasTargetTables = true;
  }
  const base = { source, schema, target, hasTargetTables, options };
  const mappers = mappersOf(base);
  const ctx: ImportContext = {
    ...base,
    pass: 'check',
    ids: await IdPlan.create(base, mappers),
    root: await findRootPair(base),
    seen: new Map(),
    abilityCount: 0,
  };
  const checked = await runPass(ctx, mappers);
  const refused = checked.tables.some((table) => table.clashes.length > 0);
  const report = (pass: typeof checked): ImportReport => ({
    source: source.label,
    flavor: schema.flavor,
    dryRun: options.dryRun,
    refused,
    ...pass,
  });
  if (options.dryRun || refused) return report(checked);
  ctx.pass = 'write';
  return report(await runPass(ctx, mappers));
}
