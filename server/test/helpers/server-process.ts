import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';

/**
 * ModelGate as a separate Node process, as `npm start` runs it, for tests that kill it (kill -9).
 * The server is bundled from src/main.ts exactly as server/scripts/build.mjs does, but into a file of
 * the test's own under node_modules/.cache, so parallel tests never rewrite server/dist under a
 * running server; npm dependencies stay external and load from the workspace's node_modules.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const outfile = path.join(root, 'node_modules/.cache/modelgate-chaos/main.js');
let bundled: Promise<string> | null = null;

export function bundleServer(): Promise<string> {
  bundled ??= (async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'server/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    await build({
      entryPoints: [path.join(root, 'server/src/main.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      external: Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@modelgate/')),
      logLevel: 'warning',
    });
    return outfile;
  })();
  return bundled;
}

/** A port that was free a moment ago: listen on 0, read the port, close. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code and signal once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns the bundled server with `env` and waits until /api/status answers 200. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const main = await bundleServer();
  for (let attempt = 0; ; attempt += 1) {
    const port = await freePort();
    let output = '';
    const child = spawn(process.execPath, [main], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        WEB_DIST_DIR: '/nonexistent-web-dist',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += String(chunk)));
    child.stderr!.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const url = `http://127.0.0.1:${port}`;
    const deadline = performance.now() + 30_000;
    while (performance.now() < deadline && child.exitCode === null) {
      const status = await fetch(`${url}/api/status`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return { url, child, output: () => output, exited };
      await sleep(20);
    }
    child.kill('SIGKILL');
    await exited;
    // Someone took the port between the probe and the listen: try another one.
    if (/EADDRINUSE/.test(output) && attempt < 3) continue;
    throw new Error(`ModelGate did not answer /api/status:\n${output}`);
  }
}

/** Kills (SIGKILL) every process of the list still running, empties it, and waits for each to end. */
export async function killAll(processes: ServerProcess[]): Promise<void> {
  for (const server of processes.splice(0)) {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server.exited;
  }
}
