import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The production entry point as `npm start` runs it: node server/dist/main.js. */
const root = path.resolve(import.meta.dirname, '../../..');
const mainJs = path.join(root, 'server/dist/main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** A port that was free a moment ago: listen on 0, read the port, close. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('start-up of the built server', () => {
  let dir: string;
  let child: ChildProcess | null = null;
  let output = '';

  beforeAll(() => {
    const sources = Math.max(newestMtime(path.join(root, 'server/src')), newestMtime(path.join(root, 'packages/shared/src')));
    if (!fs.existsSync(mainJs) || fs.statSync(mainJs).mtimeMs < sources) {
      const build = spawnSync('npm', ['run', 'build', '-w', 'server'], { cwd: root, encoding: 'utf8' });
      if (build.status !== 0) throw new Error(`npm run build -w server failed:\n${build.stdout}\n${build.stderr}`);
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-start-'));
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers /api/status on a fresh SQLite file, then exits with code 0 on SIGTERM', async () => {
    const port = await freePort();
    const sqlitePath = path.join(dir, 'data', 'modelgate.db');
    const started = performance.now();
    child = spawn(process.execPath, [mainJs], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        PORT: String(port),
        HOST: '127.0.0.1',
        SQLITE_PATH: sqlitePath,
        LOG_LEVEL: 'info',
        SESSION_SECRET: 'startup-test-secret',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += String(chunk)));
    child.stderr!.on('data', (chunk) => (output += String(chunk)));

    let status = 0;
    let body: any = null;
    while (performance.now() - started < 20_000 && child.exitCode === null) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/status`);
        status = response.status;
        body = await response.json();
        if (status === 200) break;
      } catch {
        // not listening yet
      }
      await sleep(10);
    }
    const elapsed = performance.now() - started;
    expect(status, `server output:\n${output}`).toBe(200);
    console.log(`[start-up] spawn to first 200 from /api/status: ${elapsed.toFixed(0)} ms (node ${process.version})`);
    expect(body).toMatchObject({ success: true, data: { setup: false, system_name: 'ModelGate' } });
    expect(fs.existsSync(sqlitePath)).toBe(true);
    expect(output).toContain(`ModelGate listening on http://127.0.0.1:${port}`);

    child.kill('SIGTERM');
    const exit = await exitOf(child);
    expect(exit, `server output:\n${output}`).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/shutting down/);
  });

  it('a bad PORT prints the message alone (no stack) and exits with 1', async () => {
    const bad = spawn(process.execPath, [mainJs], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, PORT: 'abc', SQLITE_PATH: path.join(dir, 'bad', 'never.db') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    bad.stdout!.on('data', (chunk) => (stdout += String(chunk)));
    bad.stderr!.on('data', (chunk) => (stderr += String(chunk)));
    const exit = await exitOf(bad);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(stderr.trim()).toBe('ModelGate cannot start: PORT must be a number >= 0, got "abc"');
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(dir, 'bad'))).toBe(false);
  });
});
