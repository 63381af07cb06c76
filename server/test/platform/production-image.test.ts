import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDockerfile, hostEnv, hostPath, runCommand, type FinalStage } from '../helpers/dockerfile-build.js';
import { decodeBody, rawGet } from '../helpers/raw-get.js';
import { freePort } from '../helpers/server-process.js';

/**
 * The Dockerfile's own build and start, without a container daemon (docs/deploy.md): a clean clone
 * of the repository, every RUN and COPY of the file as written (`npm ci`, `npm run build`,
 * `npm prune --omit=dev`, the copy into the runtime stage), then the runtime stage's CMD with its
 * ENV. That is also the production install: the server must start from the pruned tree, without dev
 * dependencies and without building. The npm cache (~/.npm) is reused, as a build cache would be;
 * nothing else from this checkout is. It runs in CI like any test (never skipped): most of its
 * minutes are `npm ci` compiling better-sqlite3, which the image build pays too.
 */
const root = path.resolve(import.meta.dirname, '../../..');

/** HEAD, plus uncommitted changes to tracked files (none in CI), so a developer tests what they are about to commit. */
function sourceCommit(): string {
  const identity = {
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@localhost',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@localhost',
  };
  const stash = execFileSync('git', ['stash', 'create'], { cwd: root, encoding: 'utf8', env: { ...process.env, ...identity } }).trim();
  return stash || execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
}

/** What the build's RUN steps see of this machine: the programs, the npm cache and how to reach the registry. */
function buildEnvironment(): Record<string, string> {
  const passed = [
    'PATH',
    'HOME',
    'TMPDIR',
    'LANG',
    'NODE_EXTRA_CA_CERTS',
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'http_proxy',
    'https_proxy',
    'no_proxy',
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'NO_PROXY',
  ];
  const npmSettings = ['nodedir', 'cache', 'registry'].flatMap((name) => [`npm_config_${name}`, `NPM_CONFIG_${name.toUpperCase()}`]);
  const env = Object.fromEntries(
    [...passed, ...npmSettings].flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])),
  );
  // Packages already in the npm cache are not revalidated one by one against the registry.
  return { ...env, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

const majorOf = (image: string): number => Number(/^node:(\d+)/.exec(image)?.[1] ?? NaN);

describe('the Dockerfile, built and started in a clean clone', () => {
  let workDir: string;
  let image: FinalStage;
  let server: ChildProcess | null = null;
  let serverOutput = '';
  let url: string;
  let runtimeEnv: Record<string, string>;
  let stages: string[];

  const log = (message: string) => console.log(`[production image] ${message}`);
  const inImage = (containerPath: string) => hostPath(image.root, path.posix.resolve(image.workdir, containerPath));
  const runHealthcheck = () =>
    new Promise<number | null>((resolve) => {
      const [program, ...args] = image.healthcheck!.command;
      const child = spawn(program === 'node' ? process.execPath : program!, args, { cwd: inImage('.'), env: runtimeEnv, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), image.healthcheck!.timeoutMs);
      void exitOf(child).then((code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });

  beforeAll(async () => {
    const started = performance.now();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-image-'));
    const context = path.join(workDir, 'context');
    execFileSync('git', ['clone', '--quiet', '--shared', '--no-checkout', root, context]);
    execFileSync('git', ['checkout', '--quiet', '--detach', sourceCommit()], { cwd: context });
    stages = fs
      .readFileSync(path.join(context, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((line) => /^FROM\s/i.test(line));
    image = await buildDockerfile(context, path.join(workDir, 'stages'), { baseEnv: buildEnvironment(), log });
    log(`built in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    // `docker run -e PORT=... -e SESSION_SECRET=...`: the image's ENV, with the options a deployment passes.
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    runtimeEnv = {
      PATH: process.env.PATH ?? '',
      HOME: path.join(workDir, 'home'),
      ...hostEnv(image.root, image.env),
      PORT: String(port),
      HOST: '127.0.0.1',
      SESSION_SECRET: 'production-image-test',
    };
    const [program, ...args] = image.cmd;
    server = spawn(program === 'node' ? process.execPath : program!, args, {
      cwd: inImage('.'),
      env: runtimeEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk) => (serverOutput += String(chunk)));
    server.stderr!.on('data', (chunk) => (serverOutput += String(chunk)));
  }, 40 * 60_000);

  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL');
      await exitOf(server);
    }
    // Over a gigabyte in some 100,000 files: rm(1) removes them several times faster than fs.rmSync.
    if (workDir) await runCommand('rm', ['-rf', workDir], { cwd: os.tmpdir(), env: { PATH: process.env.PATH ?? '' } });
  }, 15 * 60_000);

  it('has the production shape: two Node stages of one major, a non-root user owning the data volume', () => {
    const engines = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node as string;
    const minimumMajor = Number(/^>=\s*(\d+)/.exec(engines)?.[1]);
    expect(stages).toHaveLength(2);
    const majors = stages.map((line) => majorOf(line.split(/\s+/)[1]!));
    // better-sqlite3 is compiled in the first stage and loaded in the second: one Node ABI.
    expect(majors[0]).toBe(majors[1]);
    expect(majors[1]).toBeGreaterThanOrEqual(minimumMajor);
    expect(image.user).toMatch(/^[a-z][a-z0-9_-]*$/);
    expect(image.user).not.toBe('root');
    const sqliteDirectory = path.posix.dirname(image.env.SQLITE_PATH!);
    expect(image.volumes).toContain(sqliteDirectory);
    expect(image.chowned[sqliteDirectory]?.split(':')[0]).toBe(image.user);
    expect(image.exposedPorts).toEqual([Number(image.env.PORT)]);
    expect(image.healthcheck!.command.join(' ')).toContain('/healthz');
  });

  it('starts the pruned bundle itself: no sources to build from, no dev dependencies', () => {
    expect(image.cmd).toEqual(['node', 'server/dist/main.js']);
    expect(fs.existsSync(inImage('server/dist/main.js'))).toBe(true);
    expect(fs.existsSync(inImage('web/dist/index.html'))).toBe(true);
    for (const sources of ['server/src', 'web/src', 'packages/shared/src', 'scripts'])
      expect(fs.existsSync(inImage(sources)), sources).toBe(false);
    for (const tool of ['tsx', 'esbuild', 'vite', 'vitest', 'typescript-eslint', '@vitejs/plugin-react']) {
      expect(fs.existsSync(inImage(`node_modules/${tool}`)), `${tool} is a dev dependency`).toBe(false);
    }
    // The SQLite driver's native addon loads from the image's own node_modules and answers a query.
    const sqlite = spawnSync(
      process.execPath,
      ['-e', "process.stdout.write(String(new (require('better-sqlite3'))(':memory:').prepare('select 41 + 1 as x').get().x))"],
      { cwd: inImage('.'), encoding: 'utf8' },
    );
    expect(sqlite.stdout, sqlite.stderr).toBe('42');
  });

  it('answers /healthz and serves the console, keeping the database in the volume', async () => {
    const deadline = performance.now() + 90_000;
    let health = 0;
    while (performance.now() < deadline && server!.exitCode === null && health !== 200) {
      health = await fetch(`${url}/healthz`).then(
        (response) => response.status,
        () => 0,
      );
      if (health !== 200) await sleep(100);
    }
    expect(health, serverOutput).toBe(200);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('<div id="root">');
    const script = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    expect((await fetch(url + script)).status).toBe(200);
    const status = await fetch(`${url}/api/status`);
    expect((await status.json()).success).toBe(true);
    expect(fs.existsSync(hostPath(image.root, image.env.SQLITE_PATH!))).toBe(true);
  }, 120_000);

  it('passes its HEALTHCHECK while running', async () => {
    expect(await runHealthcheck()).toBe(0);
  }, 60_000);

  it('sends the largest console chunk compressed, cached for a year', async () => {
    const assets = inImage('web/dist/assets');
    const [largest] = fs
      .readdirSync(assets)
      .filter((name) => name.endsWith('.js'))
      .sort((a, b) => fs.statSync(path.join(assets, b)).size - fs.statSync(path.join(assets, a)).size);
    const original = fs.readFileSync(path.join(assets, largest!));
    const sizes: string[] = [];
    for (const [acceptEncoding, expected] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['', undefined],
    ] as const) {
      const response = await rawGet(`${url}/assets/${largest}`, acceptEncoding ? { 'accept-encoding': acceptEncoding } : {});
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe(expected);
      expect(response.headers.vary?.toLowerCase()).toContain('accept-encoding');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(decodeBody(response).equals(original)).toBe(true);
      sizes.push(`${expected ?? 'raw'} ${response.body.length.toLocaleString('en')} B`);
    }
    expect(Number(sizes[0]!.split(' ')[1]!.replaceAll(',', ''))).toBeLessThan(original.length / 2);
    log(`largest chunk ${largest}: ${sizes.join(', ')}`);
    const index = await rawGet(`${url}/`, { 'accept-encoding': 'br, gzip' });
    expect(index.headers['cache-control']).toBe('no-cache');
  }, 60_000);

  it('exits with code 0 on SIGTERM, and the HEALTHCHECK then fails', async () => {
    server!.kill('SIGTERM');
    expect(await exitOf(server!), serverOutput).toBe(0);
    expect(await runHealthcheck()).not.toBe(0);
  }, 90_000);
});
