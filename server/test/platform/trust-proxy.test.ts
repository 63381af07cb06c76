import http from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../helpers/test-server.js';

/**
 * The client address behind proxies (TRUST_PROXY): the first address, from the socket peer leftwards
 * through X-Forwarded-For, that is not a trusted proxy. A proxy such as nginx with
 * `$proxy_add_x_forwarded_for` appends the address it saw to whatever the client sent, so only the
 * entries on the right are the proxies' word; the leftmost ones are the client's and prove nothing.
 * Checked on the token IP allow-list (the relay's direct lane and a Fastify relay route), the per-IP
 * /api rate limit and the sign-in failure count, through a real server. Requests are sent from
 * 127.0.0.1, or from 127.0.0.2 (also loopback on Linux) to be a peer that is not a trusted proxy.
 */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  options: { body?: string; from?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${server.url}${path}`,
      { method, headers, localAddress: options.from ?? '127.0.0.1', agent: false },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(parts).toString('utf8') }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const forwardedFor = (chain: string): Record<string, string> => (chain ? { 'x-forwarded-for': chain } : {});
const errorOf = (answer: Answer) => (JSON.parse(answer.text) as { error: { code: string; message: string } }).error;
const chatBody = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

/** One call on the direct lane (POST JSON /v1/chat/completions) and one on a Fastify route (GET /v1/models). */
async function relayCalls(server: TestServer, apiKey: string, chain: string, from?: string): Promise<{ lane: Answer; fastify: Answer }> {
  const headers = { authorization: `Bearer ${apiKey}`, ...forwardedFor(chain) };
  const lane = await send(
    server,
    'POST',
    '/v1/chat/completions',
    { ...headers, 'content-type': 'application/json' },
    { body: chatBody, from },
  );
  const fastify = await send(server, 'GET', '/v1/models', headers, { from });
  return { lane, fastify };
}

/** Both routes let the call through: the client address is on the token's list. */
async function expectAllowed(server: TestServer, apiKey: string, chain: string, from?: string): Promise<void> {
  const { lane, fastify } = await relayCalls(server, apiKey, chain, from);
  expect(lane.status, `lane, X-Forwarded-For: ${chain}: ${lane.text}`).toBe(200);
  expect(fastify.status, `fastify, X-Forwarded-For: ${chain}: ${fastify.text}`).toBe(200);
}

/** Both routes refuse the call with ip_not_allowed, naming `client` as the caller's address. */
async function expectRefusedAs(server: TestServer, apiKey: string, chain: string, client: string, from?: string): Promise<void> {
  const { lane, fastify } = await relayCalls(server, apiKey, chain, from);
  for (const [route, answer] of [
    ['lane', lane],
    ['fastify', fastify],
  ] as const) {
    expect(answer.status, `${route}, X-Forwarded-For: ${chain}: ${answer.text}`).toBe(403);
    expect(errorOf(answer).code).toBe('ip_not_allowed');
    expect(errorOf(answer).message, `${route}, X-Forwarded-For: ${chain}`).toContain(`IP ${client} `);
  }
}

let mock: MockOpenAi;
beforeAll(async () => {
  mock = await startMockOpenAi();
});
afterAll(async () => mock.close());

/** A server with `env`, a channel on the mock and a token that allows only `allowIps`. */
async function startRelayServer(
  env: Record<string, string>,
  allowIps: string,
  options: Omit<TestServerOptions, 'env'> = {},
): Promise<{ server: TestServer; apiKey: string }> {
  const server = await startTestServer({ ...options, env });
  await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'] });
  const token = await createRelayToken(server.ctx, await createRelayUser(server.ctx), { allowIps });
  return { server, apiKey: token.apiKey };
}

describe('TRUST_PROXY=1: one nginx in front', () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    ({ server, apiKey } = await startRelayServer(
      {
        TRUST_PROXY: '1',
        GLOBAL_API_RATE_LIMIT: '5',
        GLOBAL_API_RATE_LIMIT_DURATION: '600',
        CRITICAL_RATE_LIMIT: '3',
        CRITICAL_RATE_LIMIT_DURATION: '600',
      },
      '10.9.8.7',
    ));
  });
  afterAll(async () => server.stop());

  it('takes the client address nginx appended, not one the client wrote before it', async () => {
    // nginx saw 10.9.8.7 and appended it; the allow-listed address is the client's.
    await expectAllowed(server, apiKey, '10.9.8.7');
    await expectAllowed(server, apiKey, '127.0.0.1, 10.9.8.7');
    // The client at 127.0.0.1 wrote the allowed address itself; nginx appended the real one.
    await expectRefusedAs(server, apiKey, '10.9.8.7, 127.0.0.1', '127.0.0.1');
    await expectRefusedAs(server, apiKey, '10.9.8.7, 192.0.2.50', '192.0.2.50');
  });

  it('counts the /api rate limit per client address, whatever the client writes on the left', async () => {
    const client = '198.51.100.1';
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i += 1)
      statuses.push((await send(server, 'GET', '/api/status', forwardedFor(`203.0.113.${i}, ${client}`))).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await server.ctx.cache.count(`rl:api:${client}`)).toBe(6);
    // Another client behind the same nginx has a count of its own, and the proxy's address none.
    expect((await send(server, 'GET', '/api/status', forwardedFor(`${client}, 198.51.100.2`))).status).toBe(200);
    expect(await server.ctx.cache.count('rl:api:127.0.0.1')).toBe(0);
  });

  it('locks sign-in for the client address after the failures, however the leftmost entry rotates', async () => {
    const login = (username: string, chain: string) =>
      send(
        server,
        'POST',
        '/api/user/login',
        { 'content-type': 'application/json', 'accept-language': 'zh-CN', ...forwardedFor(chain) },
        { body: JSON.stringify({ username, password: 'wrong-pass' }) },
      );
    const guesser = '198.51.100.3';
    const statuses: number[] = [];
    // A different account each time, so only the per-address count can lock.
    for (let i = 1; i <= 3; i += 1) statuses.push((await login(`nobody-${i}`, `203.0.113.${i}, ${guesser}`)).status);
    expect(statuses).toEqual([400, 400, 400]);
    const locked = await login('nobody-4', `203.0.113.99, ${guesser}`);
    expect(locked.status).toBe(429);
    expect(JSON.parse(locked.text)).toEqual({ success: false, message: '登录失败次数过多，请稍后再试', data: null });
    expect(await server.ctx.cache.count(`rl:signin-failures:ip:${guesser}`)).toBe(3);
    // Someone else behind the same nginx is not locked out by the guesser's failures.
    expect((await login('nobody-5', `${guesser}, 198.51.100.4`)).status).toBe(400);
    expect(await server.ctx.cache.count('rl:signin-failures:ip:127.0.0.1')).toBe(0);
  });
});

describe('TRUST_PROXY as a list of proxy addresses and CIDRs', () => {
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    ({ server, apiKey } = await startRelayServer({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' }, '203.0.113.9'));
  });
  afterAll(async () => server.stop());

  it('skips every trusted proxy from the right and stops at the first address that is not one', async () => {
    await expectAllowed(server, apiKey, '203.0.113.9');
    await expectAllowed(server, apiKey, '203.0.113.9, 10.1.1.1');
    await expectAllowed(server, apiKey, '198.51.100.7, 203.0.113.9, 10.20.30.40, 10.1.1.1');
    await expectRefusedAs(server, apiKey, '203.0.113.9, 198.51.100.7, 10.1.1.1', '198.51.100.7');
    // A peer that is not on the list is the client, whatever X-Forwarded-For it sends.
    await expectRefusedAs(server, apiKey, '203.0.113.9', '127.0.0.2', '127.0.0.2');
  });

  it('believes X-Forwarded-Proto only from a trusted proxy (the Secure cookie flag)', async () => {
    // Third-party sign-in needs the public address to be set (its links are built from it alone).
    await server.ctx.options.set('ServerAddress', 'https://gateway.example');
    const stateCookie = async (from: string) => {
      const answer = await send(server, 'GET', '/api/oauth/state', { 'x-forwarded-proto': 'https' }, { from });
      expect(answer.status, answer.text).toBe(200);
      return (answer.headers['set-cookie'] ?? []).find((line) => line.startsWith('oauth_state='));
    };
    expect(await stateCookie('127.0.0.1')).toMatch(/; Secure/i);
    expect(await stateCookie('127.0.0.2')).not.toMatch(/Secure/i);
  });
});

describe('TRUST_PROXY=true', () => {
  const logLines: string[] = [];
  let server: TestServer;
  let apiKey: string;
  beforeAll(async () => {
    const loggerStream = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    ({ server, apiKey } = await startRelayServer({ TRUST_PROXY: 'true', LOG_LEVEL: 'warn' }, '10.9.8.7', { loggerStream }));
  });
  afterAll(async () => server.stop());

  it('is one hop, with a warning at start-up', async () => {
    const warnings = logLines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level === 40);
    expect(warnings.map((line) => line.msg)).toContain(
      'TRUST_PROXY=true is read as one proxy hop (TRUST_PROXY=1); set the number of proxies in front or their addresses instead',
    );
    await expectAllowed(server, apiKey, '10.9.8.7');
    await expectRefusedAs(server, apiKey, '10.9.8.7, 127.0.0.1', '127.0.0.1');
  });
});
