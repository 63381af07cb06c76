import fs from 'node:fs';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { nestedJson, rawRequest, type RawAnswer } from '../helpers/raw-http.js';
import { createRelayChannel, createRelayToken, createRelayUser, setOption } from '../helpers/relay-fixtures.js';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { signedInClient } from '../helpers/session.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * Chaos: bodies that hurt a gateway from outside. Too deep to serialise, too large to take, sent
 * without a key, or more than the instance may hold at once: each is refused with a 4xx (or a 503
 * to retry) that the client gets to read, nothing reaches the upstream, no channel is blamed, and the
 * gateway's memory stays flat.
 */

const chatBody = (extra = '') => `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]${extra}}`;
const json = { 'content-type': 'application/json' };
const errorText = (answer: RawAnswer) => answer.body;

describe('chaos: deeply nested JSON', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let key: string;
  let bystander: OpenAI;
  let playground: { cookie: string; userId: number };

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer();
    // Two failures would cool the channel down for everyone: none may be counted.
    await setOption(server.ctx, 'ChannelCooldownFailures', '2');
    await createRelayChannel(server.ctx, { key: 'sk-upstream', baseURL: mock.url, models: ['gpt-4o-mini', 'text-embedding-3-small'] });
    key = (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey;
    bystander = new OpenAI({
      apiKey: (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
    const signedIn = await signedInClient(server, { username: 'deep-pg', quota: 10_000_000 });
    playground = { cookie: signedIn.client.cookie!, userId: signedIn.userId };
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  const deep = nestedJson(5000);
  const schemaWith = (value: string) => `{"type":"object","properties":{"a":${value}}}`;
  const cases = (): Array<{ name: string; path: string; headers: Record<string, string | number>; body: (value: string) => string }> => [
    {
      name: 'chat (direct lane)',
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}` },
      body: (v: string) => chatBody(`,"metadata":{"x":${v}}`),
    },
    {
      name: 'embeddings',
      path: '/v1/embeddings',
      headers: { authorization: `Bearer ${key}` },
      body: (v: string) => `{"model":"text-embedding-3-small","input":${v}}`,
    },
    {
      name: 'playground',
      path: '/pg/chat/completions',
      headers: { cookie: playground.cookie, 'new-api-user': playground.userId },
      body: (v: string) => chatBody(`,"tools":[{"type":"function","function":{"name":"t","parameters":${schemaWith(v)}}}]`),
    },
    {
      name: 'anthropic messages',
      path: '/v1/messages',
      headers: { 'x-api-key': key },
      body: (v: string) =>
        `{"model":"gpt-4o-mini","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","input_schema":${schemaWith(v)}}]}`,
    },
    {
      name: 'anthropic count_tokens',
      path: '/v1/messages/count_tokens',
      headers: { 'x-api-key': key },
      body: (v: string) =>
        `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","input_schema":${schemaWith(v)}}]}`,
    },
    {
      name: 'responses',
      path: '/v1/responses',
      headers: { authorization: `Bearer ${key}` },
      body: (v: string) => `{"model":"gpt-4o-mini","input":"hi","tools":[{"type":"function","name":"t","parameters":${schemaWith(v)}}]}`,
    },
    {
      name: 'gemini',
      path: `/v1beta/models/gpt-4o-mini:generateContent?key=${key}`,
      headers: {},
      body: (v: string) =>
        `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"t","parameters":${schemaWith(v)}}]}]}`,
    },
    { name: 'management API', path: '/api/user/login', headers: {}, body: (v: string) => `{"username":${v},"password":"x"}` },
  ];

  it('answers 400 naming the nesting on every route, before anything reaches the upstream', async () => {
    const before = mock.requests.length;
    for (const { name, path, headers, body } of cases()) {
      for (let i = 0; i < 3; i += 1) {
        const answer = await rawRequest(server.url, { path, headers: { ...json, ...headers }, body: body(deep), read: 'after-sending' });
        expect(answer.status, `${name}: ${answer.body}`).toBe(400);
        expect(errorText(answer), name).toContain('64');
      }
    }
    expect(mock.requests.length).toBe(before);
    // The OpenAI shape names it with a code of its own.
    const chat = await rawRequest(server.url, {
      path: '/v1/chat/completions',
      headers: { ...json, authorization: `Bearer ${key}` },
      body: chatBody(`,"metadata":{"x":${deep}}`),
      read: 'after-sending',
    });
    expect(JSON.parse(chat.body).error.code).toBe('json_too_deep');
  });

  it('blames no channel: another user is served after every refusal', async () => {
    const answer = await bystander.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'still there?' }] });
    expect(answer.choices[0]?.message.content).toBeTruthy();
  });

  it('takes nesting within the bound', async () => {
    const fine = nestedJson(40);
    const answer = await rawRequest(server.url, {
      path: '/v1/chat/completions',
      headers: { ...json, authorization: `Bearer ${key}` },
      body: chatBody(`,"metadata":{"x":${fine}}`),
      read: 'after-sending',
    });
    expect(answer.status, answer.body).toBe(200);
  });
});

describe("chaos: a failure inside the gateway is not the channel's", () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let key: string;
  let bystander: OpenAI;

  beforeAll(async () => {
    mock = await startMockOpenAi();
    // A depth bound far past what JSON.stringify can write: the body reaches dispatch and fails there.
    server = await startTestServer({ env: { MAX_JSON_DEPTH: '100000' } });
    await setOption(server.ctx, 'ChannelCooldownFailures', '1');
    await createRelayChannel(server.ctx, { key: 'sk-upstream', baseURL: mock.url, models: ['gpt-4o-mini'] });
    key = (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey;
    bystander = new OpenAI({
      apiKey: (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey,
      baseURL: `${server.url}/v1`,
      maxRetries: 0,
    });
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('answers 400 when the request cannot be serialised, counts it against no channel, sends nothing', async () => {
    const before = mock.requests.length;
    for (let i = 0; i < 3; i += 1) {
      const answer = await rawRequest(server.url, {
        path: '/v1/chat/completions',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: chatBody(`,"metadata":{"x":${nestedJson(20_000)}}`),
        read: 'after-sending',
      });
      expect(answer.status, answer.body).toBe(400);
      expect(JSON.parse(answer.body).error.code).toBe('request_build_failed');
    }
    expect(mock.requests.length).toBe(before);
    const served = await bystander.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(served.choices[0]?.message.content).toBeTruthy();
  });
});

describe('chaos: bodies over the limit', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let key: string;
  const limit = 1024 * 1024;

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer({ env: { MAX_REQUEST_BODY_MB: '1' } });
    await createRelayChannel(server.ctx, { key: 'sk-upstream', baseURL: mock.url, models: ['gpt-4o-mini'] });
    key = (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey;
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('reaches a client that reads only after sending, declared or chunked, on the relay and /api', async () => {
    // /api takes at most 2 MiB whatever the relay's limit.
    for (const [path, size] of [
      ['/v1/chat/completions', 1.5 * limit],
      ['/v1/messages', 1.5 * limit],
      ['/v1/responses', 1.5 * limit],
      ['/api/user/login', 3 * limit],
    ] as const) {
      for (const chunked of [false, true]) {
        const answer = await rawRequest(server.url, {
          path,
          headers: { ...json, authorization: `Bearer ${key}`, 'x-api-key': key },
          size,
          chunked,
          read: 'after-sending',
        });
        expect(answer.socketError, `${path} chunked=${chunked}`).toBeNull();
        expect(answer.status, `${path} chunked=${chunked}: ${answer.body}`).toBe(413);
      }
    }
  });

  it('gives the openai client a 413 in 10 of 10 tries, and fetch too', async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1` });
    const content = 'x'.repeat(limit + limit / 4);
    for (let i = 0; i < 10; i += 1) {
      const error = await client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
      const answer = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${key}` },
        body: chatBody(`,"pad":"${content}"`),
      });
      expect(answer.status).toBe(413);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    }
    expect(mock.requests.length).toBe(0);
  });

  it('cuts a body declared past what it drains, after answering', async () => {
    const answer = await rawRequest(server.url, {
      path: '/v1/chat/completions',
      headers: { ...json, authorization: `Bearer ${key}` },
      size: 50 * limit,
      read: 'while-sending',
    });
    expect(answer.status).toBe(413);
    expect(answer.head.toLowerCase()).toContain('connection: close');
  });
});

describe('chaos: the body budget', () => {
  let server: TestServer;
  let mock: MockOpenAi;
  let key: string;

  beforeAll(async () => {
    mock = await startMockOpenAi();
    server = await startTestServer({ env: { MAX_BODY_MEMORY_MB: '1' } });
    await createRelayChannel(server.ctx, { key: 'sk-upstream', baseURL: mock.url, models: ['gpt-4o-mini'] });
    key = (await createRelayToken(server.ctx, await createRelayUser(server.ctx))).apiKey;
  });
  afterAll(async () => {
    await server.stop();
    await mock.close();
  });

  it('refuses a body the budget cannot hold with a 503 and Retry-After, then serves again', async () => {
    const headers = { ...json, authorization: `Bearer ${key}` };
    // 800 kB of a body held open: most of the 1 MB budget.
    const holding = rawRequest(server.url, {
      path: '/v1/chat/completions',
      headers,
      size: 900 * 1024,
      stopAfter: 800 * 1024,
      read: 'while-sending',
      holdMs: 3000,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const path of ['/v1/chat/completions', '/v1/messages']) {
      const refused = await rawRequest(server.url, {
        path,
        headers: { ...headers, 'x-api-key': key },
        body: chatBody(`,"pad":"${'y'.repeat(400 * 1024)}"`),
        read: 'after-sending',
      });
      expect(refused.status, `${path}: ${refused.body.slice(0, 200)}`).toBe(503);
      expect(refused.head.toLowerCase()).toContain('retry-after: 1');
    }
    await holding;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const served = await rawRequest(server.url, {
      path: '/v1/chat/completions',
      headers,
      body: chatBody(`,"pad":"${'y'.repeat(400 * 1024)}"`),
      read: 'after-sending',
    });
    expect(served.status, served.body).toBe(200);
  });
});

describe('chaos: bodies without a key', () => {
  let server: TestServer;
  let gateway: ServerProcess;
  let key: string;
  let limitedKey: string;
  let sessionCookie: string;

  beforeAll(async () => {
    server = await startTestServer();
    const userId = await createRelayUser(server.ctx);
    key = (await createRelayToken(server.ctx, userId)).apiKey;
    limitedKey = (await createRelayToken(server.ctx, userId, { allowIps: '10.9.8.7' })).apiKey;
    sessionCookie = 'session=1.0.99999999999.forged';
    const dir = fs.mkdtempSync('/tmp/mg-flood-');
    gateway = await startServerProcess({
      SQLITE_PATH: `${dir}/flood.db`,
      SESSION_SECRET: 'flood-secret',
      MAX_BODY_MEMORY_MB: '256',
      LOG_LEVEL: 'error',
    });
  });
  afterAll(async () => {
    await server.stop();
    gateway.child.kill('SIGTERM');
    await gateway.exited;
  });

  it('answers a refused caller before its body is sent, on every relay route with a body', async () => {
    const routes: Array<[string, Record<string, string>]> = [
      ['/v1/chat/completions', { authorization: 'Bearer sk-nope' }],
      ['/v1/chat/completions', { authorization: `Bearer ${limitedKey}` }],
      ['/v1/embeddings', { authorization: 'Bearer sk-nope' }],
      ['/v1/messages', { 'x-api-key': 'sk-nope' }],
      ['/v1/responses', { authorization: 'Bearer sk-nope' }],
      ['/v1beta/models/gemini-2.0-flash:generateContent?key=nope', {}],
      ['/v1/audio/transcriptions', { authorization: 'Bearer sk-nope', 'content-type': 'multipart/form-data; boundary=x' }],
      ['/v1/images/edits', { authorization: 'Bearer sk-nope', 'content-type': 'multipart/form-data; boundary=x' }],
      ['/v1/images/variations', { authorization: 'Bearer sk-nope', 'content-type': 'multipart/form-data; boundary=x' }],
      ['/suno/submit/music', { authorization: 'Bearer sk-nope' }],
      ['/mj/submit/imagine', { authorization: 'Bearer sk-nope' }],
      ['/pg/chat/completions', { cookie: sessionCookie, 'new-api-user': '1' }],
    ];
    for (const [path, headers] of routes) {
      // 31 MB declared, only 64 kB sent: the answer comes without the rest.
      const answer = await rawRequest(server.url, {
        path,
        headers: { ...json, ...headers },
        size: 31 * 1024 * 1024,
        stopAfter: 64 * 1024,
        read: 'while-sending',
      });
      expect([401, 403], `${path}: ${answer.head.split('\r\n')[0]} ${answer.body}`).toContain(answer.status);
      // Answered while the client still holds the connection open, 31 MB short of its body.
      expect(answer.answeredAt).toBeLessThan(answer.sentAt + 1000);
    }
    // A good key on the same route waits for its body: nothing is answered before the client gives up.
    const waiting = await rawRequest(server.url, {
      path: '/v1/chat/completions',
      headers: { ...json, authorization: `Bearer ${key}` },
      size: 1024,
      stopAfter: 10,
      read: 'while-sending',
      holdMs: 300,
    });
    expect(waiting.answeredAt).toBeGreaterThan(waiting.sentAt + 250);
  });

  it('keeps its memory flat under 64 unauthenticated 31 MB bodies at once', async () => {
    const peak = () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8'))![1]) * 1024;
    const body = Buffer.alloc(31 * 1024 * 1024, 0x20);
    const paths = ['/v1/chat/completions', '/v1/messages'];
    const flood = (count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, index) =>
          rawRequest(gateway.url, {
            path: paths[index % 2]!,
            headers: { ...json, authorization: 'Bearer sk-nope', 'x-api-key': 'sk-nope' },
            body,
            read: 'after-sending',
          }),
        ),
      );
    // Warmed up first, so what is measured is the bodies, not the first requests' code and heap.
    await flood(8);
    const before = peak();
    const answers = await flood(64);
    for (const answer of answers) expect(answer.status, answer.head).toBe(401);
    // Buffered, the bodies would take 1.9 GB; refused from the headers, none is held.
    const growth = peak() - before;
    expect(growth).toBeLessThan(256 * 1024 * 1024);
  }, 120_000);
});
