import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { dockerignoreMatcher, parseDockerfile, parseEnv, stagesOf } from '../helpers/dockerfile-parse.js';

/**
 * The deployment files that no container daemon here can run: what the build context leaves out,
 * and compose.yaml's wiring against the Dockerfile and ModelGate's configuration. The Dockerfile's
 * build and start are run by production-image.test.ts.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

const finalStage = () => stagesOf(parseDockerfile(read('Dockerfile'))).at(-1)!;
const finalEnv = () =>
  Object.assign(
    {},
    ...finalStage()
      .instructions.filter((step) => step.keyword === 'ENV')
      .map(parseEnv),
  ) as Record<string, string>;
const finalArgs = (keyword: string) => finalStage().instructions.find((step) => step.keyword === keyword)?.args ?? '';

/** Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?message}`, from `values`. */
function interpolate(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, word = '') => {
    const value = values[name];
    if (value !== undefined && value !== '') return value;
    if (kind === '?') throw new Error(`${name}: ${word}`);
    return kind === '-' ? word : '';
  });
}

describe('.dockerignore', () => {
  const isIgnored = dockerignoreMatcher(read('.dockerignore'));

  it('keeps local state, secrets and build output out of the image', () => {
    for (const file of [
      '.git/HEAD',
      'node_modules/zod/package.json',
      'web/node_modules/x/index.js',
      'server/dist/main.js',
      'web/dist/index.html',
      'data/modelgate.db',
      'server/test/tmp.db-wal',
      '.env',
      'npm-debug.log',
      'e2e/artifacts/shot.png',
    ]) {
      expect(isIgnored(file), file).toBe(true);
    }
  });

  it('keeps everything the build reads', () => {
    for (const file of [
      'package.json',
      'package-lock.json',
      'server/src/main.ts',
      'server/scripts/build.mjs',
      'web/index.html',
      'web/src/main.tsx',
      'web/public/logo.svg',
      'packages/shared/src/index.ts',
      'web/vite-plugin-precompress.ts',
    ]) {
      expect(fs.existsSync(path.join(root, file)), file).toBe(true);
      expect(isIgnored(file), file).toBe(false);
    }
  });
});

describe('compose.yaml', () => {
  const secrets = { SESSION_SECRET: 'a'.repeat(64), POSTGRES_PASSWORD: 'b'.repeat(64) };
  const compose = parse(interpolate(read('compose.yaml'), secrets)) as { services: Record<string, any>; volumes: Record<string, unknown> };
  const modelgate = compose.services.modelgate;

  it('builds this Dockerfile, publishes its port and mounts its data volume', () => {
    expect(modelgate.build).toBe('.');
    const containerPorts = (modelgate.ports as string[]).map((mapping) => Number(mapping.split(':').at(-1)));
    expect(containerPorts).toEqual([Number(finalEnv().PORT)]);
    const volume = finalArgs('VOLUME');
    const mount = (modelgate.volumes as string[]).find((entry) => entry.endsWith(`:${volume}`));
    expect(mount).toBeDefined();
    expect(compose.volumes).toHaveProperty(mount!.split(':')[0]!);
  });

  it('points ModelGate at its PostgreSQL and Redis services, as ModelGate reads them', () => {
    const config = loadConfig(modelgate.environment);
    expect(config.database.kind).toBe('postgres');
    const database = new URL(config.database.dsn);
    const postgres = compose.services[database.hostname];
    expect(postgres.image).toMatch(/^postgres:\d+/);
    expect(database.username).toBe(postgres.environment.POSTGRES_USER);
    expect(database.password).toBe(postgres.environment.POSTGRES_PASSWORD);
    expect(database.pathname).toBe(`/${postgres.environment.POSTGRES_DB}`);
    expect(compose.services[new URL(config.redisUrl!).hostname].image).toMatch(/^redis:\d+/);
    expect(config.sessionSecret).toBe(secrets.SESSION_SECRET);
    expect(config.isSessionSecretGenerated).toBe(false);
  });

  it('refuses to start without the secrets instead of using a default', () => {
    for (const name of Object.keys(secrets)) {
      expect(() => interpolate(read('compose.yaml'), { ...secrets, [name]: '' }), name).toThrow(name);
    }
  });

  it('starts ModelGate once its database and Redis are healthy, and keeps the database in a volume', () => {
    for (const [name, dependency] of Object.entries(modelgate.depends_on as Record<string, { condition: string }>)) {
      expect(dependency.condition, name).toBe('service_healthy');
      expect(compose.services[name].healthcheck?.test, name).toBeDefined();
    }
    expect(Object.keys(modelgate.depends_on).sort()).toEqual(['postgres', 'redis']);
    const postgresVolume = (compose.services.postgres.volumes as string[])[0]!;
    expect(postgresVolume.split(':')[1]).toBe('/var/lib/postgresql/data');
    expect(compose.volumes).toHaveProperty(postgresVolume.split(':')[0]!);
  });
});
