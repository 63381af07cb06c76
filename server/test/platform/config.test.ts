import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseSqlDsn, parseTrustProxy } from '../../src/config.js';

describe('parseSqlDsn', () => {
  it('keeps postgres:// and postgresql:// URLs as PostgreSQL DSNs', () => {
    expect(parseSqlDsn('postgres://mg:pw@db:5432/modelgate')).toEqual({ kind: 'postgres', dsn: 'postgres://mg:pw@db:5432/modelgate' });
    expect(parseSqlDsn('postgresql://mg@db/modelgate?sslmode=disable')).toEqual({
      kind: 'postgres',
      dsn: 'postgresql://mg@db/modelgate?sslmode=disable',
    });
    expect(parseSqlDsn('  POSTGRES://db/x  ').kind).toBe('postgres');
  });

  it('keeps mysql:// URLs as MySQL DSNs', () => {
    expect(parseSqlDsn('mysql://root:pw@127.0.0.1:3306/modelgate')).toEqual({
      kind: 'mysql',
      dsn: 'mysql://root:pw@127.0.0.1:3306/modelgate',
    });
  });

  it('turns the Go-style user:pass@tcp(host:port)/db form into a mysql:// URL without the Go parameters', () => {
    expect(parseSqlDsn('root:123456@tcp(localhost:3306)/oneapi?parseTime=true')).toEqual({
      kind: 'mysql',
      dsn: 'mysql://root:123456@localhost:3306/oneapi',
    });
    expect(parseSqlDsn('mg@tcp(db:3307)/gate')).toEqual({ kind: 'mysql', dsn: 'mysql://mg@db:3307/gate' });
    expect(parseSqlDsn('tcp(db:3306)/gate?charset=utf8mb4&loc=Local')).toEqual({ kind: 'mysql', dsn: 'mysql://db:3306/gate' });
  });

  it('URL-encodes a Go-style password that holds URL delimiters', () => {
    const { dsn } = parseSqlDsn('mg:p:ss/w#rd@tcp(db:3306)/gate');
    expect(dsn).toBe('mysql://mg:p%3Ass%2Fw%23rd@db:3306/gate');
    const url = new URL(dsn);
    expect(decodeURIComponent(url.password)).toBe('p:ss/w#rd');
    expect(url.host).toBe('db:3306');
  });

  it('means SQLite when empty or blank', () => {
    expect(parseSqlDsn('')).toEqual({ kind: 'sqlite', dsn: '' });
    expect(parseSqlDsn('   ')).toEqual({ kind: 'sqlite', dsn: '' });
  });

  it('rejects anything else with a message naming the accepted forms', () => {
    for (const garbage of ['hello', 'sqlserver://sa@db/x', 'root:pw@localhost:3306/db', 'mongodb://db/x']) {
      expect(() => parseSqlDsn(garbage), garbage).toThrow(
        /SQL_DSN must be a postgres:\/\/, mysql:\/\/ or user:pass@tcp\(host:port\)\/db DSN/,
      );
    }
  });
});

describe('loadConfig', () => {
  it('has working defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      database: { kind: 'sqlite', dsn: '', sqlitePath: path.resolve('./data/modelgate.db') },
      redisUrl: null,
      redisKeyPrefix: 'mg:',
      isSessionSecretGenerated: true,
      syncFrequencySeconds: 60,
      isMaster: true,
      globalApiRateLimit: { max: 180, durationSeconds: 180 },
      criticalRateLimit: { max: 20, durationSeconds: 1200 },
      maxRequestBodyBytes: 32 * 1024 * 1024,
      streamIdleTimeoutSeconds: 120,
      taskPollIntervalSeconds: 15,
      taskTimeoutSeconds: 3600,
      relayTimeoutSeconds: 0,
      batchUpdateIntervalMs: 1000,
      channelTestFrequencyMinutes: null,
      channelUpdateFrequencyMinutes: null,
      logLevel: 'info',
      trustProxy: null,
    });
    expect(config.warnings).toEqual([
      'SESSION_SECRET is not set: a random one is used, so sessions end at restart and cannot be shared between instances',
    ]);
    expect(config.sessionSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(config.cryptoSecret).toBe(config.sessionSecret);
    expect(config.webDistDir).toBe(path.resolve(import.meta.dirname, '../../../web/dist'));
    // A generated secret differs per process start, so two instances never share it by accident.
    expect(loadConfig({}).sessionSecret).not.toBe(config.sessionSecret);
  });

  it('reads every variable it documents', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      SQL_DSN: 'root:pw@tcp(db:3306)/gate?parseTime=true',
      SQLITE_PATH: '/tmp/x/gate.db',
      REDIS_CONN_STRING: 'redis://cache:6379/2',
      REDIS_KEY_PREFIX: 'prod-a:',
      SESSION_SECRET: 'shared-session-secret',
      CRYPTO_SECRET: 'crypto-secret',
      SYNC_FREQUENCY: '30',
      NODE_TYPE: 'Slave',
      GLOBAL_API_RATE_LIMIT: '0',
      GLOBAL_API_RATE_LIMIT_DURATION: '60',
      CRITICAL_RATE_LIMIT: '5',
      CRITICAL_RATE_LIMIT_DURATION: '300',
      MAX_REQUEST_BODY_MB: '64',
      STREAMING_TIMEOUT: '300',
      RELAY_TIMEOUT: '600',
      BATCH_UPDATE_INTERVAL_MS: '250',
      CHANNEL_TEST_FREQUENCY: '10',
      CHANNEL_UPDATE_FREQUENCY: '0.5',
      LOG_LEVEL: 'debug',
      TRUST_PROXY: '2',
      WEB_DIST_DIR: '/srv/console',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      database: { kind: 'mysql', dsn: 'mysql://root:pw@db:3306/gate', sqlitePath: '/tmp/x/gate.db' },
      redisUrl: 'redis://cache:6379/2',
      redisKeyPrefix: 'prod-a:',
      sessionSecret: 'shared-session-secret',
      isSessionSecretGenerated: false,
      cryptoSecret: 'crypto-secret',
      syncFrequencySeconds: 30,
      isMaster: false,
      globalApiRateLimit: { max: 0, durationSeconds: 60 },
      criticalRateLimit: { max: 5, durationSeconds: 300 },
      maxRequestBodyBytes: 64 * 1024 * 1024,
      streamIdleTimeoutSeconds: 300,
      taskPollIntervalSeconds: 15,
      taskTimeoutSeconds: 3600,
      relayTimeoutSeconds: 600,
      batchUpdateIntervalMs: 250,
      channelTestFrequencyMinutes: 10,
      channelUpdateFrequencyMinutes: 0.5,
      logLevel: 'debug',
      webDistDir: '/srv/console',
      warnings: [],
    });
    expect([0, 1, 2].map((hop) => config.trustProxy?.('203.0.113.1', hop))).toEqual([true, true, false]);
  });

  it('treats blank values as unset and any NODE_TYPE but slave as master', () => {
    const config = loadConfig({ PORT: ' ', SESSION_SECRET: '  ', REDIS_CONN_STRING: '', NODE_TYPE: 'master' });
    expect(config.port).toBe(3000);
    expect(config.isSessionSecretGenerated).toBe(true);
    expect(config.redisUrl).toBeNull();
    expect(config.isMaster).toBe(true);
    expect(loadConfig({ NODE_TYPE: 'anything' }).isMaster).toBe(true);
  });

  it('rejects numbers that are not numbers or below their minimum, naming the variable', () => {
    const cases: Array<[string, string]> = [
      ['PORT', 'abc'],
      ['PORT', '-1'],
      ['SYNC_FREQUENCY', '0'],
      ['GLOBAL_API_RATE_LIMIT', '-5'],
      ['GLOBAL_API_RATE_LIMIT_DURATION', '0'],
      ['CRITICAL_RATE_LIMIT', 'ten'],
      ['MAX_REQUEST_BODY_MB', '0'],
      ['STREAMING_TIMEOUT', 'NaN'],
      ['RELAY_TIMEOUT', 'Infinity'],
      ['BATCH_UPDATE_INTERVAL_MS', '5'],
    ];
    for (const [name, value] of cases) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(
        new RegExp(`^${name} must be a number >= \\d+, got "${value}"$`),
      );
    }
  });

  it('reads the channel check periods as minutes: 0 or empty is off, anything but a number >= 0 is refused', () => {
    expect(loadConfig({ CHANNEL_TEST_FREQUENCY: '0', CHANNEL_UPDATE_FREQUENCY: ' ' })).toMatchObject({
      channelTestFrequencyMinutes: null,
      channelUpdateFrequencyMinutes: null,
    });
    for (const [name, value] of [
      ['CHANNEL_TEST_FREQUENCY', '-1'],
      ['CHANNEL_TEST_FREQUENCY', 'soon'],
      ['CHANNEL_UPDATE_FREQUENCY', 'Infinity'],
    ]) {
      expect(() => loadConfig({ [name!]: value }), `${name}=${value}`).toThrow(`${name} must be a number of minutes >= 0, got "${value}"`);
    }
  });

  it('rejects an unusable SQL_DSN at start-up', () => {
    expect(() => loadConfig({ SQL_DSN: 'oracle://db/x' })).toThrow(/SQL_DSN/);
  });
});

describe('parseTrustProxy', () => {
  /** Which of the hops 0..3 the trust function believes for `address`. */
  const trustedHops = (raw: string, address: string) => [0, 1, 2, 3].map((hop) => parseTrustProxy(raw).trust?.(address, hop) ?? false);

  it('means no proxy when unset, empty, false or 0', () => {
    for (const raw of [undefined, '', '  ', 'false', 'FALSE', '0'])
      expect(parseTrustProxy(raw), String(raw)).toEqual({ trust: null, warning: null });
  });

  it('reads a number as that many proxies: the socket peer and the entries right of the client', () => {
    expect(trustedHops('1', '10.0.0.1')).toEqual([true, false, false, false]);
    expect(trustedHops(' 3 ', '10.0.0.1')).toEqual([true, true, true, false]);
    expect(parseTrustProxy('2').warning).toBeNull();
  });

  it('reads true as one hop, with a warning', () => {
    for (const raw of ['true', 'TRUE', ' True ']) {
      const { warning } = parseTrustProxy(raw);
      expect(trustedHops(raw, '10.0.0.1')).toEqual([true, false, false, false]);
      expect(warning).toMatch(/^TRUST_PROXY=true is read as one proxy hop \(TRUST_PROXY=1\)/);
    }
  });

  it('reads a comma-separated list of addresses, CIDRs, netmasks and proxy-addr names, at every hop', () => {
    const list = '127.0.0.1, 10.0.0.0/8,2001:db8::/32 ,192.168.1.0/255.255.255.0';
    for (const address of ['127.0.0.1', '10.200.3.4', '2001:db8::7', '192.168.1.9', '::ffff:10.1.2.3'])
      expect(trustedHops(list, address), address).toEqual([true, true, true, true]);
    for (const address of ['127.0.0.2', '11.0.0.1', '2001:db9::1', '192.168.2.1', 'garbage', ''])
      expect(trustedHops(list, address), address).toEqual([false, false, false, false]);
    expect(trustedHops('loopback,uniquelocal', '::1')).toEqual([true, true, true, true]);
    expect(trustedHops('loopback,uniquelocal', '172.20.0.1')).toEqual([true, true, true, true]);
    expect(trustedHops('loopback,uniquelocal', '203.0.113.1')).toEqual([false, false, false, false]);
    expect(trustedHops('linklocal', '169.254.1.1')).toEqual([true, true, true, true]);
  });

  it('refuses anything else at start-up, naming the variable and the forms it takes', () => {
    const forms =
      'TRUST_PROXY must be false, a number of proxy hops, or a comma-separated list of proxy addresses, CIDRs or the names loopback, linklocal, uniquelocal';
    for (const raw of [
      'yes',
      'on',
      '-1',
      '1.5',
      '1e3',
      '127.1',
      '0x7f000001',
      'localhost',
      'nginx.internal',
      '10.0.0.0/33',
      '10.0.0.0/0',
      '10.0.0.0/',
      '10.0.0.0/abc',
      '127.0.0.1,',
      ',',
      '127.0.0.1;10.0.0.1',
      'loopback uniquelocal',
      '99999999999999999999',
    ]) {
      expect(() => parseTrustProxy(raw), raw).toThrow(forms);
      expect(() => loadConfig({ TRUST_PROXY: raw }), raw).toThrow(`got "${raw.trim()}"`);
    }
  });
});
