import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDataValueError } from '../../src/lib/db-errors.js';
import { setupRootAndLogin, type LoggedIn } from '../helpers/accounts.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { storageKinds } from '../helpers/test-storage.js';

const uncleanText = '不能包含空字符（\\u0000）或无效的 Unicode 字符';

/** The cases of issue 11 that answered 500 on PostgreSQL: each is a 400 with a message on every database. */
describe.each(storageKinds())('hostile input answers 4xx on %s', (kind) => {
  let server: TestServer;
  let root: LoggedIn;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    root = await setupRootAndLogin(server);
  });
  afterAll(async () => server?.stop());

  it.each([
    ['/api/user/login', { username: 'ro\u0000ot', password: 'whatever1' }, 'username'],
    ['/api/user/login', { username: 'root', password: '\u0000' }, 'password'],
    ['/api/user/register', { username: 'nul\u0000user', password: 'password1' }, 'username'],
    ['/api/user/register', { username: 'surrogate', password: 'pass\uD800word' }, 'password'],
  ])('refuses NUL bytes and lone surrogates at %s (unauthenticated)', async (path, body, field) => {
    const res = await server.client().post(path, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: `${field}: ${uncleanText}`, data: null });
  });

  it('refuses NUL bytes in nested fields, keys and query strings', async () => {
    const nested = await root.client.post('/api/channel/', { name: 'x', type: 1, key: 'k', models: ['gpt\u0000'] });
    expect(nested.status).toBe(400);
    expect(nested.body.message).toBe(`models.0: ${uncleanText}`);
    expect((await root.client.put('/api/option/', { key: 'Notice\u0000', value: 'x' })).status).toBe(400);
    const query = await root.client.get('/api/log/?username=a%00b');
    expect(query.status).toBe(400);
    expect(query.body.message).toBe(`username: ${uncleanText}`);
    expect((await root.client.get('/api/user/search?keyword=%ED%A0%80')).status).toBeLessThan(500);
  });

  it.each([
    ['GET', '/api/token/2147483648'],
    ['GET', '/api/channel/2147483648'],
    ['DELETE', '/api/channel/9223372036854775808'],
    ['GET', '/api/user/2147483648'],
    ['GET', '/api/redemption/2147483648'],
    ['POST', '/api/channel/2147483648/key'],
    ['GET', '/api/channel/test/2147483648'],
  ])('answers %s %s (an id past the integer column) with 400', async (method, path) => {
    const res = await root.client.request(method, path);
    expect(res.status).toBe(400);
    // Past 2^53 the number is no longer a safe integer, which zod reports as not an integer.
    expect(res.body).toMatchObject({
      success: false,
      message: path.includes('9223372036854775808') ? 'id: id 必须是整数' : 'id: id 超出范围',
    });
  });

  it('bounds ids in bodies, log filters, timestamps and page sizes', async () => {
    const manage = await root.client.post('/api/user/manage', { id: 2 ** 31, action: 'disable' });
    expect(manage.status).toBe(400);
    expect(manage.body.message).toBe('id: id 超出范围');
    expect((await root.client.put('/api/token/', { id: 2 ** 31, name: 'x' })).status).toBe(400);
    expect((await root.client.post('/api/channel/batch', { ids: [1, 2 ** 31] })).status).toBe(400);
    const channelFilter = await root.client.get('/api/log/?channel=2147483648');
    expect(channelFilter.status).toBe(400);
    expect(channelFilter.body.message).toBe('channel: channel 超出范围');
    expect((await root.client.get('/api/log/?type=2147483648')).status).toBe(400);
    expect((await root.client.get('/api/log/self?start_timestamp=9223372036854775808')).status).toBe(400);
    expect((await root.client.get('/api/data/?end_timestamp=9223372036854775808')).status).toBe(400);
    const target = await root.client.delete('/api/log/?target_timestamp=9223372036854775808');
    expect(target.status).toBe(400);
    expect(target.body.message).toBe('请选择日志记录时间');
    for (const size of ['-1', '0', '1.5', '99999999999', 'abc']) {
      expect((await root.client.get(`/api/channel/?page_size=${size}`)).status, size).toBe(400);
    }
    expect((await root.client.get('/api/token/?p=9223372036854775808')).status).toBe(400);
    // Ids in range that do not exist stay 404s.
    expect((await root.client.get('/api/token/2147483647')).status).toBe(404);
    expect((await root.client.get('/api/channel/2147483647')).status).toBe(404);
  });

  it('a relay key with a NUL byte is an invalid key (401), not a database error', async () => {
    const res = await fetch(`${server.url}/v1beta/models?key=sk-a%00b`);
    expect(res.status).toBe(401);
    await res.text();
    const bearer = await fetch(`${server.url}/v1/models`, { headers: { authorization: 'Bearer sk-\u00e9\u00e9' } });
    expect(bearer.status).toBe(401);
    await bearer.text();
  });

  it.skipIf(kind === 'sqlite')('recognises the database refusing a value, for the error handler to answer 400', async () => {
    const db = server.ctx.storage.db;
    const outOfRange = await sql`SELECT id FROM users WHERE id = ${sql.raw(kind === 'postgres' ? "'2147483648'::integer" : '2147483648')}`
      .execute(db)
      .then(
        () => null,
        (error: unknown) => error,
      );
    if (kind === 'postgres') expect(isDataValueError(outOfRange)).toBe(true);
    const tooLong = await db
      .insertInto('options')
      .values({ key: 'k'.repeat(400), value: 'v' })
      .execute()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(isDataValueError(tooLong)).toBe(true);
    expect(isDataValueError(new Error('connection refused'))).toBe(false);
  });
});
