import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserAndLogin, setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

/**
 * The bad-input sweep: every route the app registers (read from Fastify's onRoute hook, so a new
 * route is swept without touching this file) gets hostile input as anonymous, user, admin and root:
 * NUL bytes and lone surrogates in every string, ids of 2^31, 2^63, -1, 1.5 and "abc", huge
 * numbers, wrong types, deep and huge JSON, empty and malformed bodies. Any 5xx, crash or hang is a
 * failure, on every database. Requests go through app.inject, in parallel batches, to stay fast.
 */

interface SweptRoute {
  method: string;
  url: string;
}
interface Probe {
  method: string;
  url: string;
  payload?: string;
  headers?: Record<string, string>;
  what: string;
}
interface Caller {
  name: string;
  headers: Record<string, string>;
}

const nul = '\u0000';
const loneSurrogate = '\uD800';
/** Hostile path and query values, already URL-encoded. */
const hostileParams = [
  '2147483648',
  '9223372036854775808',
  '18446744073709551616',
  '-1',
  '0',
  '1.5',
  'abc',
  '1e400',
  'NaN',
  'Infinity',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%EF%BF%BF',
  '%E2%80%AE',
  '99999999999999999999999999',
  '%20',
  '-0',
  '0x10',
];
/** Query keys any route may read; string-ish hostile values go to all at once, numbers one key at a time. */
const queryKeys = [
  'p',
  'page_size',
  'size',
  'id',
  'type',
  'channel',
  'status',
  'start_timestamp',
  'end_timestamp',
  'target_timestamp',
  'keyword',
  'group',
  'model',
  'model_name',
  'token_name',
  'username',
  'token',
  'tag',
  'tag_mode',
  'id_sort',
  'status_only',
  'suffix',
  'reset_balance',
  'key',
  'code',
  'aff',
  'amount',
  'quota',
  'user_id',
  'token_id',
];
const numericQueryKeys = [
  'p',
  'page_size',
  'size',
  'id',
  'type',
  'channel',
  'status',
  'start_timestamp',
  'end_timestamp',
  'target_timestamp',
  'user_id',
  'token_id',
  'amount',
  'quota',
];
/** Wrong types ('abc', null, {}) go in the all-fields bags; these are the numbers a schema must bound. */
const hostileNumbers: unknown[] = [2 ** 31, 2 ** 63, -1, 1.5];
/** Body fields across the management API (and the relay's main ones); strings and wrong types go to all at once. */
const bodyFields = [
  'id',
  'ids',
  'user_id',
  'channel_id',
  'token_id',
  'quota',
  'remain_quota',
  'expired_time',
  'count',
  'type',
  'status',
  'priority',
  'weight',
  'max_input_tokens',
  'amount',
  'role',
  'action',
  'name',
  'username',
  'password',
  'original_password',
  'display_name',
  'email',
  'key',
  'group',
  'groups',
  'models',
  'model',
  'tag',
  'new_tag',
  'value',
  'base_url',
  'other',
  'model_mapping',
  'status_code_mapping',
  'param_override',
  'setting',
  'other_info',
  'unlimited_quota',
  'model_limits',
  'allow_ips',
  'model_limits_enabled',
  'quota_warning_threshold',
  'webhook_url',
  'notify_type',
  'aff_code',
  'top_up_code',
  'payment_method',
  'messages',
  'max_tokens',
  'stream',
  'input',
  'prompt',
  'n',
  'temperature',
  'mode',
  'remark',
  'accept_unset_model_ratio_model',
  'confirmPassword',
  'SelfUseModeEnabled',
  'DemoSiteEnabled',
];
/** Fields that end up in number columns: each gets every hostile number alone (next to id 1). */
const numericBodyFields = [
  'id',
  'ids',
  'user_id',
  'channel_id',
  'quota',
  'remain_quota',
  'expired_time',
  'count',
  'type',
  'status',
  'priority',
  'weight',
  'max_input_tokens',
  'amount',
  'role',
  'unlimited_quota',
  'model_limits_enabled',
  'quota_warning_threshold',
  'max_tokens',
  'n',
  'value',
];
const hostileStrings: unknown[] = [
  nul,
  `a${nul}b`,
  loneSurrogate,
  `x${loneSurrogate}y`,
  '\uDC00',
  '\u202E',
  '\uFFFF',
  '😀'.repeat(50),
  'x'.repeat(3_000),
  2 ** 31,
  {},
  [nul],
  { [nul]: nul },
];

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const lightBodies: Array<[string, string]> = [
  ['empty', ''],
  ['malformed', '{"a": '],
  ['truncated', '{"id": 1, "name": "x'],
  ['null', 'null'],
  ['number', '2147483648'],
  ['string', '"abc"'],
  ['array', '[1,2,3]'],
  ['nul escape', '{"name":"a\\u0000b","username":"\\u0000","key":"\\u0000","tag":"\\u0000","keyword":"\\u0000"}'],
  ['lone surrogate escape', '{"name":"\\ud800","username":"\\udc00","key":"\\ud800","models":["\\ud800"]}'],
  ['nul key', '{"\\u0000":1,"id":1}'],
  ['big int literal', '{"id": 99999999999999999999999999999, "quota": 1e400}'],
];
/** Costly to parse: sent by one caller only. */
const heavyBodies: Array<[string, string]> = [
  ['deep', nested(5_000)],
  ['deep array', `${'['.repeat(20_000)}${']'.repeat(20_000)}`],
  ['huge', JSON.stringify({ name: 'x'.repeat(300_000), messages: Array.from({ length: 2_000 }, () => ({ role: 'user', content: 'x' })) })],
  ['wide', JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])))],
];

const isRelayRoute = (route: SweptRoute) => !route.url.startsWith('/api/');

function fill(url: string, value: string): string {
  return url.replace(/:[A-Za-z_]+/g, value).replace(/\*$/, value);
}

/** The probes of one route: 'full' (root) adds one-field-at-a-time numbers and the costly bodies. */
function probesFor(route: SweptRoute, depth: 'full' | 'light'): Probe[] {
  const probes: Probe[] = [];
  const { method } = route;
  const hasParams = /:[A-Za-z_]|\*$/.test(route.url);
  const base = fill(route.url, '1');
  if (hasParams) for (const value of hostileParams) probes.push({ method, url: fill(route.url, value), what: `param ${value}` });
  // Query strings: every string-ish oddity in every key at once; numbers one key at a time.
  for (const value of ['%00', 'a%00b', '%ED%A0%80', '%E2%80%AE', 'x'.repeat(1_000)]) {
    probes.push({ method, url: `${base}?${queryKeys.map((key) => `${key}=${value}`).join('&')}`, what: `query all=${value.slice(0, 12)}` });
  }
  probes.push({ method, url: `${base}?${queryKeys.map((key) => `${key}[]=1&${key}[a]=2&${key}=3`).join('&')}`, what: 'query arrays' });
  // Filters: list and search routes (those without a path parameter) read them.
  if (depth === 'full' && !hasParams && (method === 'GET' || method === 'DELETE')) {
    for (const key of numericQueryKeys) {
      for (const value of ['2147483648', '9223372036854775808', '-1', '1.5']) {
        probes.push({ method, url: `${base}?${key}=${value}`, what: `query ${key}=${value}` });
      }
    }
  }
  if (method === 'GET') return probes;
  const json = { 'content-type': 'application/json' };
  for (const [what, payload] of [...lightBodies, ...(depth === 'full' ? heavyBodies : [])]) {
    probes.push({ method, url: base, payload, headers: json, what: `body ${what}` });
  }
  probes.push({
    method,
    url: base,
    payload: 'a=1&b=%00',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    what: 'body form',
  });
  probes.push({
    method,
    url: base,
    payload: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nab',
    headers: { 'content-type': 'multipart/form-data; boundary=x' },
    what: 'body truncated multipart',
  });
  if (depth === 'light') return probes;
  for (const value of hostileStrings) {
    const bag = Object.fromEntries(bodyFields.map((field) => [field, value]));
    const label = JSON.stringify(value)?.slice(0, 12);
    probes.push({ method, url: base, payload: JSON.stringify(bag), headers: json, what: `body all=${label}` });
    probes.push({ method, url: base, payload: JSON.stringify({ ...bag, id: 1 }), headers: json, what: `body all=${label} id=1` });
  }
  {
    for (const field of numericBodyFields) {
      for (const value of hostileNumbers) {
        const body = field === 'id' ? { id: value } : { id: 1, [field]: value };
        probes.push({ method, url: base, payload: JSON.stringify(body), headers: json, what: `body ${JSON.stringify(body)}` });
      }
    }
  }
  return probes;
}

describe.each(storageKinds())('bad-input sweep over every route on %s', (kind) => {
  let server: TestServer;
  const routes: SweptRoute[] = [];
  const callers: Caller[] = [];
  let root: LoggedIn;
  /** Values that reached the database and were refused there: each is a gap in a request schema. */
  const refusedByDatabase: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({
      kind,
      env: { LOG_LEVEL: 'warn' },
      loggerStream: {
        write(line: string) {
          // A lost audit entry is a gap too: hostile input must still be recorded (api/audit/audit-trail.ts).
          if (
            line.includes('database refused a request value') ||
            line.includes('unhandled error') ||
            line.includes('audit trail: the entry could not be written')
          )
            refusedByDatabase.push(line.slice(0, 400));
        },
      },
      onRoute: (route: RouteOptions) => {
        for (const method of [route.method].flat()) {
          if (method === 'HEAD' || method === 'OPTIONS') continue;
          routes.push({ method, url: route.url });
        }
      },
    });
    root = await setupRootAndLogin(server);
    const admin = await createUserAndLogin(server, root.client, 'sweepadmin', 10);
    const user = await createUserAndLogin(server, root.client, 'sweepuser', 1);
    // Some rows for ids to point at: a channel, a token, a redemption.
    expect(
      (
        await root.client.post('/api/channel/', {
          name: 'swept',
          type: 1,
          key: 'sk-sweep',
          models: ['gpt-4o'],
          base_url: 'http://127.0.0.1:9',
        })
      ).status,
    ).toBe(200);
    expect((await user.client.post('/api/token/', { name: 'swept', remain_quota: 1000 })).status).toBe(200);
    expect((await root.client.post('/api/redemption/', { name: 'swept', quota: 10, count: 1 })).status).toBe(200);
    const tokens = (await user.client.get('/api/token/')).body.data.items as Array<{ key: string }>;
    const session = (client: LoggedIn) => ({ cookie: client.client.cookie, 'new-api-user': String(client.userId) });
    callers.push(
      { name: 'anonymous', headers: {} },
      { name: 'user', headers: { ...session(user), authorization: `Bearer sk-${tokens[0]!.key}` } },
      { name: 'admin', headers: session(admin) },
      { name: 'root', headers: session(root) },
    );
  });
  afterAll(async () => server?.stop());

  it('answers no 5xx, never crashes and never hangs', async () => {
    expect(routes.length).toBeGreaterThan(50);
    // Routes that end the caller's own session run last, so the rest is swept signed in.
    const endsSession = (route: SweptRoute) =>
      route.url === '/api/user/logout' || (route.method === 'DELETE' && route.url === '/api/user/self');
    const ordered = [...routes.filter((route) => !endsSession(route)), ...routes.filter(endsSession)];
    const failures: string[] = [];
    let sent = 0;
    for (const caller of callers) {
      // The full set goes to the caller who gets furthest: root on the management API, the token on the relay.
      const isFull = (route: SweptRoute) => (isRelayRoute(route) ? caller.name === 'user' : caller.name === 'root');
      const probes = ordered.flatMap((route) => probesFor(route, isFull(route) ? 'full' : 'light'));
      for (let start = 0; start < probes.length; start += 64) {
        await Promise.all(
          probes.slice(start, start + 64).map(async (probe) => {
            sent += 1;
            let timer: NodeJS.Timeout | undefined;
            const hang = new Promise<'hang'>((resolve) => {
              timer = setTimeout(() => resolve('hang'), 20_000);
            });
            try {
              const answer = await Promise.race([
                server.app.inject({
                  method: probe.method as 'GET',
                  url: probe.url,
                  payload: probe.payload,
                  headers: { ...caller.headers, ...probe.headers },
                }),
                hang,
              ]);
              if (answer === 'hang')
                failures.push(`${caller.name} ${probe.method} ${probe.url.slice(0, 80)} [${probe.what}]: no answer in 20 s`);
              else if (answer.statusCode >= 500) {
                failures.push(
                  `${caller.name} ${probe.method} ${probe.url.slice(0, 80)} [${probe.what}]: ${answer.statusCode} ${answer.body.slice(0, 160)}`,
                );
              }
            } catch (error) {
              failures.push(
                `${caller.name} ${probe.method} ${probe.url.slice(0, 80)} [${probe.what}]: threw ${String(error).slice(0, 160)}`,
              );
            } finally {
              clearTimeout(timer);
            }
          }),
        );
      }
    }
    expect(sent).toBeGreaterThan(1000);
    // The server is still healthy after the sweep.
    expect((await server.client().get('/api/status')).status).toBe(200);
    expect(failures.slice(0, 60), `${failures.length} failures of ${sent} requests`).toEqual([]);
    expect(refusedByDatabase.slice(0, 20), 'values the request schemas let through to the database').toEqual([]);
  }, 300_000);
});
