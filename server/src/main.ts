import './lib/v8-tuning.js';
import { loadConfig, type Config } from './config.js';
import { startServer } from './server.js';

/**
 * The environment, parsed. A value loadConfig refuses (PORT=abc) is the operator's input, not a crash:
 * its message alone goes to stderr, without a stack, and the process exits with 1.
 */
function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    console.error(`ModelGate cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

const config = configOrExit();
const server = await startServer(config);
const log = server.app.log;
log.info(
  { database: config.database.kind, redis: config.redisUrl !== null, master: config.isMaster },
  `ModelGate listening on ${server.url}`,
);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info(
    { signal, timeoutSeconds: config.shutdownTimeoutSeconds },
    'shutting down: draining requests in flight, then flushing pending writes',
  );
  // Past the drain (SHUTDOWN_TIMEOUT) and the final flush, the process is ended whatever hangs.
  const forced = setTimeout(() => process.exit(1), (config.shutdownTimeoutSeconds + 30) * 1000);
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
