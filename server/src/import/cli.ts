import fs from 'node:fs';
import { loadConfig } from '../config.js';
import { openStorage } from '../db/index.js';
import { parseImportArgs, usage } from './args.js';
import { detectSchema, UnknownSchemaError } from './detect-schema.js';
import { formatReport, rejectedCount } from './report.js';
import { ForeignTargetError, runImport } from './run-import.js';
import { openSource } from './source.js';

/** `npm run import -- --from <DSN>`: exit 0 when done, 1 on refusal or failure, 2 on bad arguments. */
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
      onProgress(table, done, total) {
        if (table !== 'logs') return;
        const line = `logs: ${done}/${total}`;
        if (isTerminal) process.stderr.write(`\r${line}${done >= total ? '\n' : ''}`);
        else process.stderr.write(`${line}\n`);
      },
    });
    process.stdout.write(`${formatReport(report)}\n`);
    const rejected = rejectedCount(report);
    if (rejected > 0) process.stdout.write(`\n${rejected} row(s) could not be imported; see above.\n`);
    return 0;
  } catch (error) {
    if (error instanceof UnknownSchemaError || error instanceof ForeignTargetError) process.stderr.write(`${error.message}\n`);
    else process.stderr.write(`import failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await source.close();
    await target.close();
  }
}

main().then((code) => { process.exitCode = code; }, (error: unknown) => {
  process.stderr.write(`import failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
