import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDockerfile, hostPath } from '../helpers/dockerfile-build.js';
import { dockerignoreMatcher } from '../helpers/dockerfile-parse.js';

/**
 * Checks the checker: production-image.test.ts trusts this interpreter to run a Dockerfile as
 * `docker build` would, so here it builds small files whose outcome is known, and refuses what it
 * cannot run faithfully.
 */
const dirs: string[] = [];
function contextWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dockerfile-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, 'context', name)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'context', name), text);
  }
  return dir;
}
const build = (dir: string) =>
  buildDockerfile(path.join(dir, 'context'), path.join(dir, 'stages'), { baseEnv: { PATH: process.env.PATH ?? '' } });

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the Dockerfile interpreter', () => {
  it('copies from the context less .dockerignore, runs RUN in WORKDIR with ENV, and copies between stages', async () => {
    const dir = contextWith({
      Dockerfile: [
        '# syntax=docker/dockerfile:1',
        'FROM node:24 AS build',
        'WORKDIR /src',
        'ENV GREETING="hello there"',
        'COPY app/ ./',
        'RUN echo "$GREETING" > greeting.txt && \\',
        '    ls > listing.txt',
        'FROM node:24-slim',
        'ENV DATA=/var/data MODE=prod',
        'WORKDIR /srv',
        'COPY --from=build /src ./',
        'COPY --from=build --chown=app:app /src/keep.txt /var/data/',
        'USER app',
        'VOLUME ["/var/data"]',
        'EXPOSE 8080/tcp',
        'HEALTHCHECK --timeout=3s CMD ["node", "-e", "0"]',
        'CMD ["node", "main.js"]',
      ].join('\n'),
      '.dockerignore': 'app/secret.env\n**/*.log\n!app/keep.log\n',
      'app/keep.txt': 'kept',
      'app/secret.env': 'TOKEN=1',
      'app/debug.log': 'noise',
      'app/keep.log': 'wanted',
    });
    const image = await build(dir);
    expect(fs.readFileSync(hostPath(image.root, '/srv/greeting.txt'), 'utf8')).toBe('hello there\n');
    expect(fs.readFileSync(hostPath(image.root, '/srv/listing.txt'), 'utf8').split('\n').filter(Boolean)).toEqual([
      'greeting.txt',
      'keep.log',
      'keep.txt',
      'listing.txt',
    ]);
    expect(fs.readFileSync(hostPath(image.root, '/var/data/keep.txt'), 'utf8')).toBe('kept');
    expect(image).toMatchObject({
      workdir: '/srv',
      env: { DATA: '/var/data', MODE: 'prod' },
      user: 'app',
      volumes: ['/var/data'],
      exposedPorts: [8080],
      cmd: ['node', 'main.js'],
      chowned: { '/var/data/keep.txt': 'app:app' },
    });
    expect(image.healthcheck).toMatchObject({ timeoutMs: 3000, intervalMs: 30_000, retries: 3, command: ['node', '-e', '0'] });
  });

  it('fails the build when a RUN step fails', async () => {
    const dir = contextWith({ Dockerfile: 'FROM node:24\nWORKDIR /app\nRUN echo broken >&2 && exit 3\n' });
    await expect(build(dir)).rejects.toThrow(/exited with 3[\s\S]*broken/);
  });

  it('refuses what a directory cannot stand for, naming the line', async () => {
    const cases: Array<[string, RegExp]> = [
      ['FROM node:24\nRUN mkdir -p /data\n', /line 2: .*absolute path/],
      ['FROM node:24\nENV HOME_DIR=$HOME\n', /line 2: ENV HOME_DIR uses \$/],
      ['FROM node:24\nARG VERSION\n', /line 2: ARG is not interpreted/],
      ['FROM node:24\nCMD node main.js\n', /line 2: CMD must use the exec form/],
      ['FROM node:24\nCOPY --link . .\n', /line 2: COPY --link/],
      ['FROM node:24\nCOPY *.json ./\n', /line 2: COPY must be .* without wildcards/],
      ['FROM node:24\nCOPY --from=missing /a /b\n', /line 2: COPY --from=missing names no earlier stage/],
      ['FROM node:24\nCOPY secret.env ./\n', /line 2: secret.env is excluded by .dockerignore/],
      ['WORKDIR /app\n', /line 1: WORKDIR before the first FROM/],
    ];
    for (const [dockerfile, message] of cases) {
      const dir = contextWith({ Dockerfile: dockerfile, '.dockerignore': 'secret.env\n', 'secret.env': 'x' });
      await expect(build(dir), dockerfile).rejects.toThrow(message);
    }
  });

  it('reads .dockerignore as docker does: anchored at the root, ** for any depth, the last rule wins', () => {
    const isIgnored = dockerignoreMatcher('# comment\n*.md\n**/tmp\n/build/\n!README.md\n');
    expect(isIgnored('notes.md')).toBe(true);
    expect(isIgnored('docs/notes.md')).toBe(false);
    expect(isIgnored('README.md')).toBe(false);
    expect(isIgnored('a/b/tmp/x.txt')).toBe(true);
    expect(isIgnored('build/out.js')).toBe(true);
    expect(isIgnored('web/build/out.js')).toBe(false);
  });
});
