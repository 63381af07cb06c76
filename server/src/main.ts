import { loadConfig } from './config.js';
import { startServer } from './server.js';

const config = loadConfig();
const server = await startServer(config);
const log = server.app.log;
if (config.isSessionSecretGenerated) {
  log.warn('SESSION_SECRET is not set: a random one is used, so sessions end at restart and cannot be shared between instances');
}
log.info({ database: config.database.kind, redis: config.redisUrl !== null, master: config.isMaster }, `ModelGate listening on ${server.url}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down: flushing pending writes');
  const forced = setTimeout(() => process.exit(1), 15_000);
  forced.unref();
  try {
    await server.close();
    process.exit(0);
  } catch (error) {
    log.error({ err: error }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
