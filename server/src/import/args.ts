export interface ImportArgs {
  from: string;
  dryRun: boolean;
  withLogs: boolean;
  withTasks: boolean;
  batchSize: number;
  takeSourceRoot: boolean;
  remapIds: boolean;
}

export const usage = `Usage: npm run import -- --from <database> [--dry-run] [--logs] [--tasks] [--batch-size N]
                         [--take-source-root] [--remap-ids]

  --from              the one-api / new-api database: a SQLite file path, mysql://user:pass@host:3306/db,
                      user:pass@tcp(host:3306)/db (the Go form of their SQL_DSN) or postgres://user:pass@host/db
  --dry-run           print what would be imported, every row that cannot be and every clash; write nothing
  --logs              also import the usage logs (batched, with progress)
  --tasks             also import asynchronous tasks and Midjourney jobs
  --batch-size        rows per transaction (default 500)
  --take-source-root  the old root replaces ModelGate's root (the one the setup page made): same row,
                      the old root's username, password, balance and settings
  --remap-ids         a row whose id ModelGate already uses for another row is imported under a new id
                      (the report lists them); its tokens, logs and other rows follow it

Import into a new database, before the setup page. A row that meets a different row already in
ModelGate (same id, or same username or key) stops the import before anything is written, unless
an option above resolves it.
ModelGate's database is the one the server uses: SQL_DSN, else SQLITE_PATH (./data/modelgate.db).
Exit status: 0 all imported, 1 refused or failed, 2 bad arguments, 3 imported except the rows listed.`;

/** Reads the command line; throws a message for anything it does not know. */
export function parseImportArgs(argv: string[]): ImportArgs | 'help' {
  const args: ImportArgs = {
    from: '',
    dryRun: false,
    withLogs: false,
    withTasks: false,
    batchSize: 500,
    takeSourceRoot: false,
    remapIds: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '' || (inline === undefined && next.startsWith('--'))) throw new Error(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case '--from':
        args.from = value();
        break;
      case '--dry-run':
        args.dryRun = true;
        break;
      case '--logs':
        args.withLogs = true;
        break;
      case '--tasks':
        args.withTasks = true;
        break;
      case '--take-source-root':
        args.takeSourceRoot = true;
        break;
      case '--remap-ids':
        args.remapIds = true;
        break;
      case '--batch-size': {
        const size = Number(value());
        if (!Number.isInteger(size) || size < 1 || size > 10_000) throw new Error('--batch-size must be a whole number from 1 to 10000');
        args.batchSize = size;
        break;
      }
      case '--help':
      case '-h':
        return 'help';
      default:
        throw new Error(`unknown argument ${arg}`);
    }
  }
  if (args.from === '') throw new Error('--from is required');
  return args;
}
