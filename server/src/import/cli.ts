import fs from 'node:fs';
import { loadConfig } from '../config.js';
import { openStorage } from '../db/index.js';
import { parseImportArgs, usage } from './args.js';
import { detectSchema, UnknownSchemaError } from './detect-schema.js';
import { ImportPlanChangedError } from './id-plan.js';
import { clashCount, formatReport, rejectedCount, type ImportReport } from './report.js';
import { ImportRefusedError } from './root-pair.js';
import { ForeignTargetError, runImport } from './run-import.js';
import { openSource } from './source.js';

/** The closing lines and the exit status: a dry run answers with the status the import would have. */
function outcomeOf(report: ImportReport): { message: string; code: number } {
  const clashes = clashCount(report);
  const rejected = rejectedCount(report);
  if (clashes > 0) {
    return {
      code: 1,
      message: `${clashes} row(s) clash with rows already in ModelGate; nothing was written. Import into a new database before the setup page, or resolve each clash as it says, then run again.`,
    };
  }
  if (rejected > 0) {
    const verb = report.dryRun ? 'would not be imported' : 'were not imported';
    return {
      code: 3,
      message: `The import is incomplete: ${rejected} row(s) ${verb} (listed above). Fix them in the old database and run the same command again; rows already imported are recognised.`,
    };
  }
  return { code: 0, message: '' };
}

/**
 * `npm run import -- --from <DSN>`: exit 0 when everything is imported, 1 on refusal (clashes, a
 * foreign database) or failure, 2 on bad arguments, 3 when some rows could not be imported.
 */
async function main(): Promise<number> {
  let args;
  try {
    args = parseImportArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const config = loadConfig();
  const source = openSource(args.from);
  // Refuse a foreign database before ModelGate's database is even opened (no file is created).
  try {
    await detectSchema(source);
  } catch (error) {
    await source.close();
    process.stderr.write(`${error instanceof UnknownSchemaError ? '' : 'import failed: '}${(error as Error).message}\n`);
    return 1;
  }
  // A dry run against a SQLite file that does not exist yet must not create it: read an empty one.
  const isMissingFile = config.database.kind === 'sqlite' && !fs.existsSync(config.database.sqlitePath);
  const sqlitePath = args.dryRun && isMissingFile ? ':memory:' : config.database.sqlitePath;
  const target = openStorage({ ...config.database, sqlitePath, poolSize: 2 });
  const isTerminal = process.stderr.isTTY;
  try {
    const report = await runImport(source, target, {
      dryRun: args.dryRun,
      withLogs: args.withLogs,
      withTasks: args.withTasks,
      batchSize: args.batchSize,
      takeSourceRoot: args.takeSourceRoot,
      remapIds: args.remapIds,
      onProgress(table, done, total, pass) {
        if (table !== 'logs') return;
        const line = `${pass === 'check' ? 'checking ' : ''}logs: ${done}/${total}`;
        if (isTerminal) process.stderr.write(`\r${line}${done >= total ? '\n' : ''}`);
        else process.stderr.write(`${line}\n`);
      },
    });
    process.stdout.write(`${formatReport(report)}\n`);
    const outcome = outcomeOf(report);
    if (outcome.message) process.stdout.write(`\n${outcome.message}\n`);
    return outcome.code;
  } catch (error) {
    if (error instanceof UnknownSchemaError || error instanceof ForeignTargetError || error instanceof ImportRefusedError)
      process.stderr.write(`${error.message}\n`);
    else if (error instanceof ImportPlanChangedError)
      process.stderr.write(
        `import failed, partly written: ${error.message}. Stop everything that writes to it and run the same command again.\n`,
      );
    else process.stderr.write(`import failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await source.close();
    await target.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`import failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
