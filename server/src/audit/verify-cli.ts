import fs from 'node:fs';
import { loadConfig } from '../config.js';
import { openStorage } from '../db/index.js';
import { verifyAuditChain } from './chain.js';

/**
 * `npm run audit:verify`: checks the audit trail's hash chain in the database the environment
 * configures (SQL_DSN / SQLITE_PATH, as the server reads them). Prints OK and the number of entries,
 * or the first broken entry, and exits 0, 1 (broken) or 2 (could not check). It only reads.
 */
async function main(): Promise<number> {
  const config = loadConfig();
  if (config.database.kind === 'sqlite' && !fs.existsSync(config.database.sqlitePath)) {
    process.stderr.write(`audit verify: no database at ${config.database.sqlitePath}\n`);
    return 2;
  }
  const storage = openStorage({ ...config.database, poolSize: 1 });
  try {
    const verdict = await verifyAuditChain(storage);
    if (verdict.ok) {
      process.stdout.write(`OK: ${verdict.checked} audit entries verified\n`);
      return 0;
    }
    process.stdout.write(
      `BROKEN at entry ${verdict.brokenId ?? '(none left)'}: ${verdict.reason} (${verdict.checked} entries verified before it)\n`,
    );
    return 1;
  } finally {
    await storage.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`audit verify failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
