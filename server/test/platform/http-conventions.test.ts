import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-storage.js';

/**
 * The management API's HTTP conventions, checked through real HTTP on an app whose log lines are
 * captured: every answer is the {success, message, data} envelope, every response carries
 * X-Request-Id and its log line names it, and no credential ever reaches a log line.
 */

/** POST /api routes that take a JSON body and no sign-in, in order of preference. */
const openPostRoutes = ['/api/user/login', '/api/user/register', '/api/setup'];

interface LogLine {
  level: number;
  reqId?: string;
  msg: string;
  [field: string]: unknown;
}

let server: RunningServer;
let database: TestDatabase;
let postRoute: string | undefined;
const logText: string[] = [];

const logLines = (): LogLine[] =>
  logText
    .join('')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LogLine);

/** The access-log line of one request; it is written after the response, so wait for it. */
async function logLineOf(requestId: string): Promise<LogLine> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const line = logLines().find((entry) => entry.reqId === requestId && entry.msg === 'request');
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no log line for request ${requestId}`);
    await sleep(10);
  }
}

async function send(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(server.url + path, { method, headers: init.headers, body: init.body });
  const text = await response.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, text, body };
}

function expectEnvelopeError(res: { text: string; body: any; headers: Headers }) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ success: false, message: expect.stringMatching(/\S/), data: null });
  // Nothing of the server's insides: no stack frames, file paths or error class names.
  expect(res.text).not.toMatch(/\bat .+:\d+:\d+|node_modules|\.ts:\d+|\.js:\d+|SyntaxError|FST_ERR/);
}

beforeAll(async () => {
  database = await createTestDatabase('sqlite');
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SQLITE_PATH: database.sqlitePath,
    SESSION_SECRET: 'test-session-secret',
    LOG_LEVEL: 'info',
    GLOBAL_API_RATE_LIMIT: '100000',
    CRITICAL_RATE_LIMIT: '100000',
    WEB_DIST_DIR: '/nonexistent-web-dist',
  });
  const loggerStream = new Writable({
    write(chunk, _encoding, done) {
      logText.push(String(chunk));
      done();
    },
  });
  server = await startServer(config, { loggerStream });
  postRoute = openPostRoutes.find((url) => server.app.hasRoute({ method: 'POST', url }));
});

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

describe('management API errors use the envelope', () => {
  it('answers malformed JSON with 400 and a message, without a stack trace', async (context) => {
    if (!postRoute) return context.skip('no open POST /api route is registered yet');
    const res = await send('POST', postRoute, {
      body: '{"username": "root", "password": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expectEnvelopeError(res);
  });

  it('answers a 10 MB body with 413', async (context) => {
    if (!postRoute) return context.skip('no open POST /api route is registered yet');
    const big = JSON.stringify({ username: 'root', password: 'x'.repeat(10 * 1024 * 1024) });
    const res = await send('POST', postRoute, { body: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expectEnvelopeError(res);
  });

  it('answers a body of an unsupported Content-Type with 415', async (context) => {
    if (!postRoute) return context.skip('no open POST /api route is registered yet');
    const res = await send('POST', postRoute, {
      body: '<login><username>root</username></login>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(res.status).toBe(415);
    expectEnvelopeError(res);
  });

  it('answers unknown /api routes with 404 for every method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      const res = await send(
        method,
        '/api/no/such/route',
        method === 'GET' || method === 'DELETE' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } },
      );
      expect(res.status, method).toBe(404);
      expectEnvelopeError(res);
    }
  });
});

describe('X-Request-Id', () => {
  it('is on every response and names the log line of that request', async () => {
    const responses = [
      await send('GET', '/api/status'),
      await send('GET', '/api/no-such-route'),
      await send('POST', '/api/status', { body: '{bad json', headers: { 'content-type': 'application/json' } }),
      await send('POST', '/v1/chat/completions', { body: '{}', headers: { 'content-type': 'application/json' } }),
      await send('GET', '/console/deep/link'),
    ];
    const ids = new Set<string>();
    for (const res of responses) {
      const requestId = res.headers.get('x-request-id');
      expect(requestId, `status ${res.status}`).toMatch(/^[\w.-]{1,64}$/);
      ids.add(requestId!);
      const line = await logLineOf(requestId!);
      expect(line.status).toBe(res.status);
    }
    expect(ids.size).toBe(responses.length);
  });

  it('keeps a caller-supplied id so a proxy and ModelGate log the same one', async () => {
    const res = await send('GET', '/api/status', { headers: { 'X-Request-Id': 'edge-7f3a.42' } });
    expect(res.headers.get('x-request-id')).toBe('edge-7f3a.42');
    expect((await logLineOf('edge-7f3a.42')).url).toBe('/api/status');
  });
});

describe('secrets never reach the log', () => {
  it('logs neither Authorization, Cookie, ?key= nor password/key/token body fields', async () => {
    const secrets = {
      bearer: 'sk-secretBearerValue0123456789abcdefABCDEF',
      cookie: 'session-secret-cookie-4f1c9e',
      query: 'query-secret-key-88d2a1',
      password: 'pw-secret-hunter2-71b0',
      bodyKey: 'body-secret-key-c3e5d7',
      bodyToken: 'body-secret-token-0a9f6b',
      apiKeyHeader: 'x-api-key-secret-5e2b8c',
    };
    const headers = {
      authorization: `Bearer ${secrets.bearer}`,
      cookie: `session=${secrets.cookie}`,
      'x-api-key': secrets.apiKeyHeader,
      'content-type': 'application/json',
      'new-api-user': '1',
    };
    const jsonBody = JSON.stringify({ username: 'root', password: secrets.password, key: secrets.bodyKey, token: secrets.bodyToken });
    const requests = [
      send('GET', `/api/status?key=${secrets.query}`, { headers }),
      send('GET', `/api/user/self?key=${secrets.query}`, { headers }),
      send('POST', `${postRoute ?? '/api/status'}?key=${secrets.query}`, { headers, body: jsonBody }),
      send('POST', `/api/no-such-route?key=${secrets.query}`, { headers, body: jsonBody }),
      send('POST', `/api/status?key=${secrets.query}`, { headers, body: `{"password": "${secrets.password}", ` }),
      send('POST', `/v1/chat/completions?key=${secrets.query}`, {
        headers,
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], key: secrets.bodyKey }),
      }),
      send('GET', `/v1beta/models?key=${secrets.query}`, { headers }),
    ];
    const responses = await Promise.all(requests);
    // The requests really were logged (so the check below is not vacuous)...
    for (const res of responses) await logLineOf(res.headers.get('x-request-id')!);
    const output = logText.join('');
    // ...and no secret, nor a recognisable part of one, is in any line.
    for (const [name, value] of Object.entries(secrets)) {
      expect(output.includes(value), `${name} leaked into the log`).toBe(false);
      expect(output.includes(value.slice(0, 16)), `a prefix of ${name} leaked into the log`).toBe(false);
    }
    expect(output).not.toMatch(/sk-secret/);
  });
});
