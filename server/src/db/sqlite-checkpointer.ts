import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/** How often the checkpointer copies the write-ahead log into the database file. */
export const checkpointIntervalMs = 1000;
/** SQLite's own threshold, given back to the server's connection when the checkpointer stops. */
const autoCheckpointPages = 1000;
/** The server's connection cuts the log file back to this size when it starts the log over after a whole checkpoint. */
const walSizeLimitBytes = 64 * 1024 * 1024;

/** What the checkpointer's last pass found: frames in the log, and how many of them are in the database file. */
export interface CheckpointPass {
  logFrames: number;
  checkpointedFrames: number;
}

/**
 * The worker's program (CommonJS, evaluated): a connection of its own that runs a PASSIVE checkpoint
 * every interval. PASSIVE never waits for and never blocks the server's connection: it copies what no
 * reader still needs, and the next pass takes the rest.
 */
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('wal_autocheckpoint = 0');
const pass = () => {
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ logFrames: row.log, checkpointedFrames: row.checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
};
const timer = setInterval(pass, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Moves SQLite's WAL checkpoints off the event loop. By default the connection that commits a
 * transaction past 1,000 log pages checkpoints the whole log then and there: with the write-behind
 * flush at thousands of rows a second that is a pause of tens to a hundred ms every few seconds, in
 * which no call is served. Here the server's connection never checkpoints (wal_autocheckpoint 0), and
 * a worker thread with a connection of its own does it every second. Should the worker stop (it could
 * not open the file, it failed), the server's connection checkpoints again as SQLite does by default.
 */
export class SqliteCheckpointer {
  /** The last pass, for tests and diagnostics; null before the first. */
  lastPass: CheckpointPass | null = null;
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private isClosing = false;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    path: string,
    private readonly onError: (error: Error) => void,
    intervalMs = checkpointIntervalMs,
  ) {
    sqlite.pragma('wal_autocheckpoint = 0');
    // The writer restarts the log, so the limit is the writer's (SQLite's default keeps the file at its largest).
    sqlite.pragma(`journal_size_limit = ${walSizeLimitBytes}`);
    this.worker = new Worker(workerSource, {
      eval: true,
      workerData: { driver: createRequire(import.meta.url).resolve('better-sqlite3'), path, intervalMs },
    });
    // The server's exit never waits for it: SQLite is safe at any stop, and the log is checkpointed at the next open.
    this.worker.unref();
    this.worker.on('message', (message: CheckpointPass | { error: string }) => {
      if ('error' in message) this.onError(new Error(`SQLite checkpoint failed: ${message.error}`));
      else this.lastPass = message;
    });
    this.exited = new Promise((resolve) => {
      this.worker.once('error', (error) => this.onError(error));
      this.worker.once('exit', () => {
        if (!this.isClosing) this.fallBack();
        resolve();
      });
    });
  }

  /** The worker is gone: the server's connection checkpoints again. */
  private fallBack(): void {
    if (!this.sqlite.open) return;
    this.sqlite.pragma(`wal_autocheckpoint = ${autoCheckpointPages}`);
    this.onError(new Error('SQLite checkpoint worker stopped; checkpoints run on the server connection again'));
  }

  /** Stops the worker after its connection is closed (the last connection to close checkpoints and removes the log). */
  async close(): Promise<void> {
    this.isClosing = true;
    this.worker.postMessage('close');
    await this.exited;
  }

  /** Ends the worker at once, as a crash would (tests). */
  async kill(): Promise<void> {
    await this.worker.terminate();
    await this.exited;
  }
}
