import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/src/config.js';
import { startServer, type RunningServer } from '../../server/src/server.js';
import { trackRelay } from '../../server/test/helpers/test-server.js';

export const webDist = path.resolve(import.meta.dirname, '../../web/dist');
export const artifactsDir = path.resolve(import.meta.dirname, '../artifacts');

/** A real ModelGate on a random port with a temporary SQLite file, serving the built console (`env`: more settings). */
export async function startModelGate(env: Record<string, string> = {}): Promise<{ server: RunningServer; stop: () => Promise<void> }> {
  if (!fs.existsSync(path.join(webDist, 'index.html'))) throw new Error('web/dist missing: run `npm run build -w web` first');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-e2e-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SQLITE_PATH: path.join(dir, 'e2e.db'),
    SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
    LOG_LEVEL: 'silent',
    WEB_DIST_DIR: webDist,
    ...env,
  });
  const server = await startServer(config);
  trackRelay(server);
  fs.mkdirSync(artifactsDir, { recursive: true });
  return {
    server,
    stop: async () => {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
