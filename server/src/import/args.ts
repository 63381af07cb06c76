export interface ImportArgs {
  from: string;
  dryRun: boolean;
  withLogs: boolean;
  withTasks: boolean;
  batchSize: number;
}

export const usage = `Usage: npm run import -- --from <database> [--dry-run] [--logs] [--tasks] [--batch-size N]

  --from        the one-api / new-api database: a SQLite file path, mysql://user:pass@host:3306/db,
                user:pass@tcp(host:3306)/db (the Go form of their SQL_DSN) or postgres://user:pass@host/db
  --dry-run     print what would be imported and every row that cannot be; write nothing
  --logs        also import the usage logs (batched, with progress)
  --tasks       also import asynchronous tasks and Midjourney jobs
  --batch-size  rows per transaction (default 500)

ModelGate's database is the one the server uses: SQL_DSN, else SQLITE_PATH (./data/modelgate.db).`;

/** Reads the command line; throws a message for anything it does not know. */
export function parseImportArgs(argv: string[]): ImportArgs | 'help' {
  const args: ImportArgs = { from: '', dryRun: false, withLogs: false, withTasks: false, batchSize: 500 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const next = inline ?? argv[++i];
      if (next === undefined || next === '' || (inline === undefined && next.startsWith('--'))) throw new Error(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case '--from': args.from = value(); break;
      case '--dry-run': args.dryRun = true; break;
      case '--logs': args.withLogs = true; break;
      case '--tasks': args.withTasks = true; break;
      case '--batch-size': {
        const size = Number(value());
        if (!Number.isInteger(size) || size < 1 || size > 10_000) throw new Error('--batch-size must be a whole number from 1 to 10000');
        args.batchSize = size;
        break;
      }
      case '--help': case '-h': return 'help';
      default: throw new Error(`unknown argument ${arg}`);
    }
  }
  if (args.from === '') throw new Error('--from is required');
  return args;
}
