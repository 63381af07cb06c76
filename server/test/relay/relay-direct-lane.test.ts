import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAi, type MockOpenAi } from '../helpers/mock-openai.js';
import { createRelayChannel, createRelayToken, createRelayUser, flushRelay, setOption } from '../helpers/relay-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/**
 * The relay's direct lane (src/relay/direct-lane.ts) serves POST + JSON calls of the OpenAI JSON
 * routes from Node's HTTP server, before Fastify. These tests go through a real running server and
 * check that the lane answers as the Fastify routes do. Two oracles stand for "the Fastify route":
 * `server.app.inject()` (it never reaches the HTTP server, so never the lane) and
 * `/v1/engines/:model/embeddings`, which only Fastify serves.
 */

const chatBody = (content = 'hi', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const notJsonMessage = "Body is not valid JSON but content-type is set to 'application/json'";
const emptyMessage = "Body cannot be empty when content-type is set to 'application/json'";
const notObjectMessage = 'The request body must be a JSON object';

interface OpenAiError {
  message: string;
  type: string;
  param: null;
  code: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

const errorOf = (answer: Answer): OpenAiError => (JSON.parse(answer.text) as { error: OpenAiError }).error;

/** A POST with fetch; the answer read whole. */
async function post(base: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() };
}

/** The same call answered by the Fastify route (app.inject never goes through the HTTP server). */
async function viaFastify(
  server: TestServer,
  path: string,
  body: string,
  headers: Record<string, string> = {},
  remoteAddress?: string,
): Promise<Answer> {
  const response = await server.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
    remoteAddress,
  });
  return { status: response.statusCode, headers: response.headers as Record<string, string>, text: response.body };
}

interface RawPost {
  path: string;
  headers: Record<string, string | number>;
  /** Written one at a time, a macrotask apart (separate chunks on the wire when chunked). */
  chunks?: (Buffer | string)[];
  /** false: the request is left open after the chunks (the answer must come without the end). */
  end?: boolean;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/**
 * A POST with node:http for what fetch cannot do: a content-length the body does not match, a body in
 * chunks, a request that never ends. Resolves with the answer; errors after it (the server closing
 * a connection it refused) are ignored. The socket is destroyed once the answer is read.
 */
function rawPost(base: string, options: RawPost): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(`${base}${options.path}`, { method: 'POST', headers: options.headers, agent: false }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => {
        answered = true;
        request.destroy();
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers as Record<string, string>,
          text: Buffer.concat(parts).toString('utf8'),
        });
      });
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    request.flushHeaders();
    void (async () => {
      for (const chunk of options.chunks ?? []) {
        if (answered || request.destroyed) return;
        request.write(chunk);
        await tick();
      }
      if (options.end !== false && !request.destroyed) request.end();
    })();
  });
}

/**
 * Starts a request, writes `chunks`, waits a moment and destroys the socket without ending the body.
 * Returns whether the server answered the half-sent request (it must not).
 */
async function abandon(
  base: string,
  path: string,
  headers: Record<string, string | number>,
  chunks: (Buffer | string)[],
): Promise<boolean> {
  const request = http.request(`${base}${path}`, { method: 'POST', headers, agent: false });
  const settled = new Promise<void>((resolve) => request.on('close', () => resolve()));
  let answered = false;
  request.on('error', () => undefined);
  request.on('response', () => {
    answered = true;
  });
  request.flushHeaders();
  for (const chunk of chunks) {
    request.write(chunk);
    await tick();
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  request.destroy();
  await settled;
  return answered;
}

/** A POST through a keep-alive agent; `socket` tells which connection carried it. */
function agentPost(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  pieces: (Buffer | string)[],
): Promise<Answer & { socket: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers as Record<string, string>,
            text: Buffer.concat(parts).toString(),
            socket: response.socket,
          }),
        );
      },
    );
    request.on('error', reject);
    for (const piece of pieces) request.write(piece);
    request.end();
  });
}

/** Removes what differs between two identical calls (timestamps) from a streamed answer. */
const stableStream = (text: string) => text.replace(/"created":\d+/g, '"created":0');

let mock: MockOpenAi;
beforeAll(async () => {
  mock = await startMockOpenAi();
});
afterAll(async () => {
  await mock.close();
});

describe('direct lane on the default server', () => {
  let server: TestServer;
  let userId: number;
  let apiKey: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer();
    const { ctx } = server;
    await setOption(ctx, 'ModelRatio', JSON.stringify({ ...ctx.options.json<Record<string, number>>('ModelRatio'), 'rerank-mini': 1 }));
    userId = await createRelayUser(ctx, { quota: 100_000_000 });
    apiKey = (await createRelayToken(ctx, userId, { name: 'lane' })).apiKey;
    auth = { authorization: `Bearer ${apiKey}` };
    await createRelayChannel(ctx, {
      key: 'healthy',
      baseURL: mock.url,
      models: [
        'gpt-4o-mini',
        'gpt-3.5-turbo-instruct',
        'text-embedding-3-small',
        'omni-moderation-latest',
        'dall-e-3',
        'tts-1',
        'rerank-mini',
      ],
    });
    // Azure (type 3) puts the client's api-version in the upstream URL: the query's effect is visible.
    await createRelayChannel(ctx, { type: 3, key: 'azure-key', baseURL: mock.url, models: ['gpt-3.5-turbo'] });
  });
  afterAll(async () => {
    await server.stop();
  });

  const chat = (body = chatBody(), headers: Record<string, string> = {}, path = '/v1/chat/completions') =>
    post(server.url, path, body, { ...auth, ...headers });
  const expectChatAnswer = (answer: Answer) => {
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [{ message: { content: 'Hello from the mock upstream.' } }],
    });
  };

  describe('JSON body parsing', () => {
    it('refuses a malformed body with 400 invalid_request, OpenAI-shaped', async () => {
      const answer = await chat('{"model": "gpt-4o-mini",');
      expect(answer.status).toBe(400);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(errorOf(answer)).toEqual({ message: notJsonMessage, type: 'invalid_request_error', param: null, code: 'invalid_request' });
    });

    it('refuses an empty body and a whitespace-only body', async () => {
      const empty = await chat('');
      expect(empty.status).toBe(400);
      expect(errorOf(empty)).toEqual({ message: emptyMessage, type: 'invalid_request_error', param: null, code: 'invalid_request' });
      const blank = await chat('  \n ');
      expect(blank.status).toBe(400);
      expect(errorOf(blank).message).toBe(notJsonMessage);
    });

    it('refuses JSON that is not an object (array, string, null, number)', async () => {
      for (const body of ['[{"model":"gpt-4o-mini"}]', '"gpt-4o-mini"', 'null', '42']) {
        const answer = await chat(body);
        expect(answer.status, body).toBe(400);
        expect(errorOf(answer), body).toEqual({
          message: notObjectMessage,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_request',
        });
      }
    });

    it('refuses prototype poisoning (__proto__, constructor.prototype) and keeps serving', async () => {
      const before = mock.requests.length;
      const proto = await chat('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"__proto__":{"polluted":true}}');
      expect(proto.status).toBe(400);
      expect(errorOf(proto)).toMatchObject({ message: notJsonMessage, code: 'invalid_request' });
      const nested = await chat('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi","__proto__":{"polluted":true}}]}');
      expect(nested.status).toBe(400);
      const constructorPoison = await chat('{"model":"gpt-4o-mini","constructor":{"prototype":{"polluted":true}}}');
      expect(constructorPoison.status).toBe(400);
      expect(errorOf(constructorPoison).message).toBe(notJsonMessage);
      // Nothing reached the upstream and no prototype was touched (the server runs in this process).
      expect(mock.requests.length).toBe(before);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expectChatAnswer(await chat());
    });

    it('decodes UTF-8 split across chunks of a chunked body', async () => {
      const content = '你好，世界 🙂 — ok';
      const body = Buffer.from(chatBody(content));
      // Cut inside the 3-byte 你 and inside the 4-byte emoji.
      const first = body.indexOf(Buffer.from('你')) + 1;
      const second = body.indexOf(Buffer.from('🙂')) + 2;
      const answer = await rawPost(server.url, {
        path: '/v1/chat/completions',
        headers: { ...auth, 'content-type': 'application/json' },
        chunks: [body.subarray(0, first), body.subarray(first, second), body.subarray(second)],
      });
      expect(answer.status, answer.text).toBe(200);
      expect(mock.requests.at(-1)!.body.messages[0].content).toBe(content);
    });
  });

  describe('parity with the Fastify routes', () => {
    const failingBodies = [
      '{"model": "gpt-4o-mini",',
      '',
      '   ',
      'not json at all',
      '{"model":"gpt-4o-mini"} trailing',
      '[1, 2]',
      '"a string"',
      'null',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '{"model":""}',
      '{"messages":[]}',
      '\uFEFF{"model":""}',
    ];

    it('answers failing bodies as the same route served by Fastify (app.inject)', async () => {
      for (const withToken of [true, false]) {
        const headers = withToken ? auth : {};
        for (const body of failingBodies) {
          const lane = await post(server.url, '/v1/chat/completions', body, headers);
          const fastify = await viaFastify(server, '/v1/chat/completions', body, headers);
          expect(lane.status, `${body} token=${withToken}`).toBe(fastify.status);
          expect(lane.status).toBeGreaterThanOrEqual(400);
          expect(JSON.parse(lane.text), `${body} token=${withToken}`).toEqual(JSON.parse(fastify.text));
          expect(lane.headers['content-type']).toBe(fastify.headers['content-type']);
        }
      }
    });

    it('answers a gzip body (no decompression on either path) as Fastify does', async () => {
      const headers = { ...auth, 'content-encoding': 'gzip' };
      const body = gzipSync(chatBody());
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body,
      });
      const lane = await response.json();
      const fastify = await server.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: body,
      });
      expect(response.status).toBe(400);
      expect(fastify.statusCode).toBe(400);
      expect(lane).toEqual(fastify.json());
      expect(lane.error.message).toBe(notJsonMessage);
    });

    it('the lane, not Fastify, answered: its parse errors keep the connection (Fastify closes it), and the connection stays usable', async () => {
      // The one visible difference between the two paths on these errors. The body was read whole,
      // so keeping the connection is safe; it shows the calls above were the lane's.
      const lane = await chat('{');
      const fastify = await post(server.url, '/v1/engines/gpt-4o-mini/embeddings', '{', auth);
      expect(lane.headers.connection).toBe('keep-alive');
      expect(fastify.headers.connection).toBe('close');
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const url = `${server.url}/v1/chat/completions`;
        const answers = [
          await agentPost(agent, url, auth, ['{']),
          await agentPost(agent, url, auth, ['']),
          await agentPost(agent, url, auth, [chatBody()]),
        ];
        expect(answers.map((answer) => answer.status)).toEqual([400, 400, 200]);
        expect(new Set(answers.map((answer) => answer.socket)).size).toBe(1);
      } finally {
        agent.destroy();
      }
    });

    it('answers a malformed and an empty body as /v1/engines/:model/embeddings (a Fastify-only route)', async () => {
      for (const body of ['{"input": [', '']) {
        const lane = await post(server.url, '/v1/chat/completions', body, auth);
        const fastify = await post(server.url, '/v1/engines/gpt-4o-mini/embeddings', body, auth);
        expect(lane.status).toBe(400);
        expect(fastify.status).toBe(400);
        expect(errorOf(lane)).toEqual(errorOf(fastify));
        expect(errorOf(lane).code).toBe('invalid_request');
        expect(errorOf(lane).message).toBe(body === '' ? emptyMessage : notJsonMessage);
      }
    });

    it('relays a chat answer and a streamed answer byte for byte as Fastify does', async () => {
      const lane = await chat();
      const fastify = await viaFastify(server, '/v1/chat/completions', chatBody(), auth);
      expect(lane.status).toBe(200);
      expect(fastify.status).toBe(200);
      expect(JSON.parse(stableStream(lane.text))).toEqual(JSON.parse(stableStream(fastify.text)));
      expect(lane.headers['content-type']).toBe(fastify.headers['content-type']);

      const streamBody = chatBody('stream', { stream: true, stream_options: { include_usage: true } });
      const laneStream = await chat(streamBody);
      const fastifyStream = await viaFastify(server, '/v1/chat/completions', streamBody, auth);
      expect(laneStream.status).toBe(200);
      expect(stableStream(laneStream.text)).toBe(stableStream(fastifyStream.text));
      for (const name of ['content-type', 'cache-control', 'x-accel-buffering'])
        expect(laneStream.headers[name], name).toBe(fastifyStream.headers[name]);
    });

    it('answers an upstream failure as Fastify does', async () => {
      await createRelayChannel(server.ctx, { key: 'fail-400', baseURL: mock.url, models: ['gpt-4o'] });
      const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
      const lane = await post(server.url, '/v1/chat/completions', body, auth);
      const fastify = await viaFastify(server, '/v1/chat/completions', body, auth);
      // The mock's 400 is the request's fault: returned at once, with the upstream's message.
      expect(lane.status).toBe(400);
      expect(errorOf(lane).message).toBe('mock failure 400');
      expect(lane.status).toBe(fastify.status);
      expect(JSON.parse(lane.text)).toEqual(JSON.parse(fastify.text));
    });
  });

  describe('content types', () => {
    it('serves application/json with a charset, without a space and in upper case', async () => {
      for (const type of [
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'Application/JSON',
        'APPLICATION/JSON; charset=utf-8',
      ]) {
        expectChatAnswer(await chat(chatBody(), { 'content-type': type }));
      }
    });

    it('leaves text/plain to Fastify: a 4xx, OpenAI-shaped, as app.inject answers it', async () => {
      const lane = await post(server.url, '/v1/chat/completions', chatBody(), { ...auth, 'content-type': 'text/plain' });
      const fastify = await viaFastify(server, '/v1/chat/completions', chatBody(), { ...auth, 'content-type': 'text/plain' });
      expect(lane.status).toBeGreaterThanOrEqual(400);
      expect(lane.status).toBeLessThan(500);
      // Fastify's built-in text/plain parser gives the handler a string: not a JSON object.
      expect(lane.status).toBe(400);
      expect(errorOf(lane)).toEqual({ message: notObjectMessage, type: 'invalid_request_error', param: null, code: 'invalid_request' });
      expect({ status: lane.status, error: errorOf(lane) }).toEqual({ status: fastify.status, error: errorOf(fastify) });
    });

    it('refuses a content type no parser takes with 415, OpenAI-shaped', async () => {
      for (const type of ['application/xml', 'application/jsonx', 'application/json-patch+json']) {
        const lane = await post(server.url, '/v1/chat/completions', chatBody(), { ...auth, 'content-type': type });
        const fastify = await viaFastify(server, '/v1/chat/completions', chatBody(), { ...auth, 'content-type': type });
        expect(lane.status, type).toBe(415);
        expect(errorOf(lane)).toMatchObject({ type: 'invalid_request_error', param: null });
        expect(errorOf(lane)).toEqual(errorOf(fastify));
      }
    });
  });

  describe('paths and query', () => {
    const routes: { path: string; body: Record<string, unknown>; upstream: string; check(answer: Answer): void }[] = [
      {
        path: '/v1/chat/completions',
        body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        upstream: '/v1/chat/completions',
        check: (a) => expect(JSON.parse(a.text).choices[0].message.content).toBe('Hello from the mock upstream.'),
      },
      {
        path: '/v1/completions',
        body: { model: 'gpt-3.5-turbo-instruct', prompt: 'Once upon' },
        upstream: '/v1/completions',
        check: (a) => expect(JSON.parse(a.text).choices[0].text).toBe('Hello from the mock upstream.'),
      },
      {
        path: '/v1/embeddings',
        body: { model: 'text-embedding-3-small', input: ['abcd', 'efgh'] },
        upstream: '/v1/embeddings',
        check: (a) => expect(JSON.parse(a.text).data).toHaveLength(2),
      },
      {
        path: '/v1/moderations',
        body: { input: 'hello' },
        upstream: '/v1/moderations',
        check: (a) => expect(JSON.parse(a.text).results[0].flagged).toBe(false),
      },
      {
        path: '/v1/images/generations',
        body: { model: 'dall-e-3', prompt: 'a cat' },
        upstream: '/v1/images/generations',
        check: (a) => expect(JSON.parse(a.text).data).toHaveLength(1),
      },
      {
        path: '/v1/audio/speech',
        body: { model: 'tts-1', voice: 'alloy', input: 'hello' },
        upstream: '/v1/audio/speech',
        check: (a) => expect(a.text).toBe('ID3mock-audio-bytes'),
      },
      {
        path: '/v1/rerank',
        body: { model: 'rerank-mini', query: 'q', documents: ['a', 'b'] },
        upstream: '/v1/rerank',
        check: (a) => expect(JSON.parse(a.text).results).toHaveLength(2),
      },
    ];

    it('serves every JSON route, with and without one trailing slash and with a query', async () => {
      for (const route of routes) {
        for (const suffix of ['', '/', '?api-version=2024-06-01', '/?api-version=2024-06-01']) {
          const answer = await post(server.url, `${route.path}${suffix}`, JSON.stringify(route.body), auth);
          expect(answer.status, `${route.path}${suffix}: ${answer.text}`).toBe(200);
          route.check(answer);
          expect(mock.requests.at(-1)!.path.split('?')[0]).toBe(route.upstream);
        }
      }
    });

    it("takes api-version from the query as Fastify's query parser does (Azure URL)", async () => {
      const body = JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      const upstreamPath = async (call: () => Promise<Answer>) => {
        const answer = await call();
        expect(answer.status, answer.text).toBe(200);
        return mock.requests.at(-1)!.path;
      };
      const given = await upstreamPath(() => post(server.url, '/v1/chat/completions?api-version=2024-06-01', body, auth));
      expect(given).toBe('/openai/deployments/gpt-35-turbo/chat/completions?api-version=2024-06-01');
      const queries = [
        '',
        '?api-version=2024-06-01',
        '?api-version=2024%2D06%2D01',
        '?other=1&api-version=2024-02-01',
        '?api-version=a&api-version=b',
        '?api-version=',
        '?api-version',
        '?api-version=x+y',
      ];
      for (const query of queries) {
        const lane = await upstreamPath(() => post(server.url, `/v1/chat/completions${query}`, body, auth));
        const fastify = await upstreamPath(() => viaFastify(server, `/v1/chat/completions${query}`, body, auth));
        expect(lane, query).toBe(fastify);
      }
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a valid incoming id on a success, a parse error, a relay error and a stream', async () => {
      const id = { 'x-request-id': 'abc-123' };
      const success = await chat(chatBody(), id);
      expect(success.status).toBe(200);
      expect(success.headers['x-request-id']).toBe('abc-123');

      const malformed = await chat('{', id);
      expect(malformed.status).toBe(400);
      expect(malformed.headers['x-request-id']).toBe('abc-123');

      const unauthorized = await post(server.url, '/v1/chat/completions', chatBody(), id);
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers['x-request-id']).toBe('abc-123');

      const stream = await chat(chatBody('hi', { stream: true }), id);
      expect(stream.status).toBe(200);
      expect(stream.headers['x-request-id']).toBe('abc-123');
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(stream.text.trimEnd().endsWith('data: [DONE]')).toBe(true);
      const deltas = stream.text
        .split('\n\n')
        .filter((event) => event.startsWith('data: {'))
        .map((event) => JSON.parse(event.slice(6)).choices[0]?.delta?.content ?? '');
      expect(deltas.join('')).toBe('Hello from the mock upstream.');
    });

    it('generates an id when there is none or it is not a valid one, as for Fastify routes', async () => {
      const first = await chat();
      const second = await chat();
      expect(first.headers['x-request-id']).toMatch(uuidPattern);
      expect(second.headers['x-request-id']).toMatch(uuidPattern);
      expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
      for (const invalid of ['has space', 'x'.repeat(65), 'semi;colon']) {
        const answer = await chat(chatBody(), { 'x-request-id': invalid });
        expect(answer.headers['x-request-id'], invalid).toMatch(uuidPattern);
      }
      // A Fastify-served relay answer and a Fastify-served error follow the same rule.
      const fastifyRoute = await post(server.url, '/v1/engines/gpt-4o-mini/embeddings', '{', { 'x-request-id': 'abc-123' });
      expect(fastifyRoute.headers['x-request-id']).toBe('abc-123');
      const notFound = await fetch(`${server.url}/v1/chat/completions`, { headers: { 'x-request-id': 'has space' } });
      expect(notFound.headers.get('x-request-id')).toMatch(uuidPattern);
    });
  });

  describe('auth and method errors', () => {
    it('answers a missing or unknown token with 401 invalid_api_key, as Fastify does', async () => {
      const missing = await post(server.url, '/v1/chat/completions', chatBody());
      expect(missing.status).toBe(401);
      expect(errorOf(missing)).toMatchObject({ type: 'authentication_error', param: null, code: 'invalid_api_key' });
      expect(JSON.parse(missing.text)).toEqual(JSON.parse((await viaFastify(server, '/v1/chat/completions', chatBody())).text));
      const unknown = await chat(chatBody(), { authorization: 'Bearer sk-doesnotexist' });
      expect(unknown.status).toBe(401);
      expect(errorOf(unknown).code).toBe('invalid_api_key');
      // x-api-key is read as well.
      expectChatAnswer(await post(server.url, '/v1/chat/completions', chatBody(), { 'x-api-key': apiKey }));
    });

    it('leaves other methods to Fastify: GET and PUT are OpenAI-shaped 404s', async () => {
      for (const method of ['GET', 'PUT']) {
        const response = await fetch(`${server.url}/v1/chat/completions`, {
          method,
          headers: { ...auth, 'content-type': 'application/json' },
          body: method === 'GET' ? undefined : chatBody(),
        });
        expect(response.status, method).toBe(404);
        expect((await response.json()).error).toEqual({
          message: `Invalid URL (${method} /v1/chat/completions)`,
          type: 'invalid_request_error',
          param: null,
          code: 'not_found',
        });
      }
    });
  });

  describe('clients that go away', () => {
    it('survives a client that disconnects mid-body (content-length and chunked)', async () => {
      const body = chatBody('x'.repeat(2000));
      const half = body.slice(0, body.length / 2);
      expect(
        await abandon(
          server.url,
          '/v1/chat/completions',
          { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          [half],
        ),
      ).toBe(false);
      expect(
        await abandon(server.url, '/v1/chat/completions', { ...auth, 'content-type': 'application/json' }, [
          half.slice(0, 100),
          half.slice(100),
        ]),
      ).toBe(false);
      expectChatAnswer(await chat());
    });

    it('serves other calls while a request body never finishes', async () => {
      const request = http.request(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        agent: false,
      });
      request.on('error', () => undefined);
      let answered = false;
      request.on('response', () => {
        answered = true;
      });
      request.write('{"model":"gpt-4o-mini","messages":[');
      const results = await Promise.all([
        chat(),
        chat(),
        post(server.url, '/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: 'abcd' }), auth),
      ]);
      expect(results.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(answered).toBe(false);
      request.destroy();
      expectChatAnswer(await chat());
    });
  });

  describe('client address without TRUST_PROXY', () => {
    it('ignores X-Forwarded-For: the socket address is checked', async () => {
      const token = await createRelayToken(server.ctx, userId, { allowIps: '10.1.2.3' });
      const headers = { authorization: `Bearer ${token.apiKey}`, 'x-forwarded-for': '10.1.2.3' };
      const answer = await chat(chatBody(), headers);
      expect(answer.status).toBe(403);
      expect(errorOf(answer)).toMatchObject({ type: 'permission_error', code: 'ip_not_allowed' });
      expect(errorOf(answer).message).toContain('127.0.0.1');
      const fastify = await viaFastify(server, '/v1/chat/completions', chatBody(), headers, '127.0.0.1');
      expect(JSON.parse(answer.text)).toEqual(JSON.parse(fastify.text));
    });
  });

  describe('billing', () => {
    it('bills every successful call: used_quota equals the sum of the log quotas', async () => {
      const { ctx } = server;
      const db = ctx.storage.db;
      const initial = 10_000_000;
      const billedUser = await createRelayUser(ctx, { quota: initial });
      const token = await createRelayToken(ctx, billedUser, { name: 'billed' });
      const headers = { authorization: `Bearer ${token.apiKey}` };
      const calls: [string, string][] = [
        ['/v1/chat/completions', chatBody('first call')],
        ['/v1/chat/completions/', chatBody('second call, a little longer')],
        ['/v1/chat/completions?api-version=2024-06-01', chatBody('third')],
        ['/v1/completions', JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Once upon a time' })],
        ['/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: ['abcd', 'efgh'] })],
      ];
      for (const [path, body] of calls) {
        const answer = await post(server.url, path, body, headers);
        expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      }
      // A failed call is not billed.
      expect((await post(server.url, '/v1/chat/completions', '{', headers)).status).toBe(400);
      await flushRelay(ctx);
      const logs = await db
        .selectFrom('logs')
        .select(['quota', 'token_name', 'is_stream', 'model_name'])
        .where('user_id', '=', billedUser)
        .where('type', '=', 2)
        .execute();
      expect(logs).toHaveLength(calls.length);
      expect(logs.every((row) => row.token_name === 'billed' && row.is_stream === 0)).toBe(true);
      const sum = logs.reduce((total, row) => total + Number(row.quota), 0);
      expect(sum).toBeGreaterThan(0);
      const user = await db
        .selectFrom('users')
        .select(['quota', 'used_quota', 'request_count'])
        .where('id', '=', billedUser)
        .executeTakeFirstOrThrow();
      const tokenRow = await db.selectFrom('tokens').select(['used_quota']).where('id', '=', token.id).executeTakeFirstOrThrow();
      expect(Number(user.used_quota)).toBe(sum);
      expect(Number(user.quota)).toBe(initial - sum);
      expect(Number(user.request_count)).toBe(calls.length);
      expect(Number(tokenRow.used_quota)).toBe(sum);
    });

    it('bills a lane call exactly as the same call through Fastify', async () => {
      const { ctx } = server;
      const body = chatBody('the same words either way');
      const logOf = async () => {
        await flushRelay(ctx);
        return ctx.storage.db
          .selectFrom('logs')
          .select(['quota', 'prompt_tokens', 'completion_tokens', 'model_name', 'is_stream', 'token_name', 'group'])
          .where('user_id', '=', userId)
          .where('type', '=', 2)
          .orderBy('id', 'desc')
          .executeTakeFirstOrThrow();
      };
      expect((await chat(body)).status).toBe(200);
      const lane = await logOf();
      expect((await viaFastify(server, '/v1/chat/completions', body, auth)).status).toBe(200);
      const fastify = await logOf();
      expect(lane).toEqual(fastify);
      expect(lane.quota).toBeGreaterThan(0);
    });
  });
});

describe('direct lane body limit (MAX_REQUEST_BODY_MB=1)', () => {
  const limit = 1024 * 1024;
  let server: TestServer;
  let auth: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({ env: { MAX_REQUEST_BODY_MB: '1' } });
    expect(server.ctx.config.maxRequestBodyBytes).toBe(limit);
    const userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    auth = { authorization: `Bearer ${(await createRelayToken(server.ctx, userId)).apiKey}` };
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini', 'text-embedding-3-small'] });
  });
  afterAll(async () => {
    await server.stop();
  });

  /** A chat body of exactly `size` bytes. */
  const bodyOfSize = (size: number) => {
    const base = chatBody('', { pad: '' });
    return base.replace('"pad":""', `"pad":"${'p'.repeat(size - Buffer.byteLength(base))}"`);
  };
  const expectTooLarge = (answer: Answer) => {
    expect(answer.status, answer.text).toBe(413);
    expect(errorOf(answer)).toEqual({
      message: 'The request body is too large',
      type: 'invalid_request_error',
      param: null,
      code: 'payload_too_large',
    });
  };

  it('answers a declared content-length over the limit with 413 before the body, whatever the client declared', async () => {
    const body = bodyOfSize(limit + 1);
    const headers = { ...auth, 'content-type': 'application/json', 'content-length': limit + 1, 'x-request-id': 'too-big' };
    // Only the first 64 KB are sent: the answer must not wait for the rest, and the connection stays
    // open for the rest (drained), so a client that reads only after sending still gets the 413.
    const lane = await rawPost(server.url, { path: '/v1/chat/completions', headers, chunks: [body.slice(0, 64 * 1024)], end: false });
    expectTooLarge(lane);
    expect(lane.headers['x-request-id']).toBe('too-big');
    // A content-length far beyond what is drained (twice the limit): answered, and the connection closed.
    const lying = await rawPost(server.url, {
      path: '/v1/chat/completions',
      headers: { ...headers, 'content-length': 50 * limit },
      chunks: ['{"model":'],
      end: false,
    });
    expectTooLarge(lying);
    // The Fastify route with the same heads.
    const fastify = await rawPost(server.url, {
      path: '/v1/engines/text-embedding-3-small/embeddings',
      headers,
      chunks: [body.slice(0, 64 * 1024)],
      end: false,
    });
    expectTooLarge(fastify);
    const fastifyLying = await rawPost(server.url, {
      path: '/v1/engines/text-embedding-3-small/embeddings',
      headers: { ...headers, 'content-length': 50 * limit },
      chunks: ['{"model":'],
      end: false,
    });
    expectTooLarge(fastifyLying);
  });

  it('answers a chunked body (no content-length) that grows over the limit with 413', async () => {
    const piece = Buffer.alloc(256 * 1024, 'a');
    const answer = await rawPost(server.url, {
      path: '/v1/chat/completions',
      headers: { ...auth, 'content-type': 'application/json' },
      chunks: ['{"model":"gpt-4o-mini","pad":"', piece, piece, piece, piece, piece, piece, '"}'],
    });
    expectTooLarge(answer);
  });

  it('takes a body of exactly the limit and refuses one byte more', async () => {
    const atLimit = bodyOfSize(limit);
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    const accepted = await post(server.url, '/v1/chat/completions', atLimit, auth);
    expect(accepted.status, accepted.text).toBe(200);
    const over = Buffer.from(bodyOfSize(limit + 1));
    // Chunked, so the lane counts the bytes as they come.
    const refused = await rawPost(server.url, {
      path: '/v1/chat/completions',
      headers: { ...auth, 'content-type': 'application/json' },
      chunks: [over.subarray(0, limit), over.subarray(limit)],
    });
    expectTooLarge(refused);
  });

  it('keeps serving after the refused bodies, on new and on kept-alive connections', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const url = `${server.url}/v1/chat/completions`;
      // A chunked 413 drains the rest of its body and keeps its connection: the next calls reuse it.
      const piece = Buffer.alloc(300 * 1024, 'a');
      const refused = await agentPost(agent, url, auth, [piece, piece, piece, piece, piece]);
      expectTooLarge(refused);
      const sockets = new Set<unknown>([refused.socket]);
      for (let i = 0; i < 3; i += 1) {
        const answer = await agentPost(agent, url, auth, [chatBody()]);
        expect(answer.status, answer.text).toBe(200);
        sockets.add(answer.socket);
      }
      expect(sockets.size).toBe(1);
    } finally {
      agent.destroy();
    }
    expect(
      (await post(server.url, '/v1/embeddings', JSON.stringify({ model: 'text-embedding-3-small', input: 'abcd' }), auth)).status,
    ).toBe(200);
  });
});

describe('direct lane client address with TRUST_PROXY=1', () => {
  let server: TestServer;
  let headers: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({ env: { TRUST_PROXY: '1' } });
    const userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
    const token = await createRelayToken(server.ctx, userId, { allowIps: '10.1.2.3' });
    headers = { authorization: `Bearer ${token.apiKey}` };
    await createRelayChannel(server.ctx, { key: 'healthy', baseURL: mock.url, models: ['gpt-4o-mini'] });
  });
  afterAll(async () => {
    await server.stop();
  });

  it('takes the client address from X-Forwarded-For, as the one proxy in front wrote it', async () => {
    const allowed = await post(server.url, '/v1/chat/completions', chatBody(), { ...headers, 'x-forwarded-for': '10.1.2.3' });
    expect(allowed.status, allowed.text).toBe(200);
    const direct = await post(server.url, '/v1/chat/completions', chatBody(), headers);
    expect(direct.status).toBe(403);
    expect(errorOf(direct)).toMatchObject({ code: 'ip_not_allowed', type: 'permission_error' });
    expect(errorOf(direct).message).toContain('127.0.0.1');
  });

  it('picks the same address as Fastify from a chain of proxies', async () => {
    const chains = ['10.1.2.3', '10.1.2.3, 127.0.0.1', '10.1.2.3,192.168.0.1, 172.16.0.1', '192.168.0.9, 10.1.2.3', 'garbage', ''];
    for (const chain of chains) {
      const chainHeaders = chain ? { ...headers, 'x-forwarded-for': chain } : headers;
      const lane = await post(server.url, '/v1/chat/completions', chatBody(), chainHeaders);
      const fastify = await viaFastify(server, '/v1/chat/completions', chatBody(), chainHeaders, '127.0.0.1');
      expect(lane.status, chain).toBe(fastify.status);
      if (lane.status !== 200) expect(errorOf(lane), chain).toEqual(errorOf(fastify));
    }
    // The rightmost entry is the one the proxy appended; what the client wrote left of it is not believed.
    const forged = await post(server.url, '/v1/chat/completions', chatBody(), { ...headers, 'x-forwarded-for': '10.1.2.3, 192.168.0.9' });
    expect(forged.status).toBe(403);
    expect(errorOf(forged).message).toContain('192.168.0.9');
    expect(
      (await post(server.url, '/v1/chat/completions', chatBody(), { ...headers, 'x-forwarded-for': '192.168.0.9, 10.1.2.3' })).status,
    ).toBe(200);
  });
});

/** The HTTP/1.1 text of a JSON POST. */
const rawHttpPost = (path: string, apiKey: string, body: string) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** Everything a socket receives until the server ends it (5 s at most). */
function readUntilClosed(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (part: Buffer) => parts.push(part));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(parts).toString('utf8'));
    });
  });
}

/** Splits responses with a content-length (all answers here have one) read from one socket. */
function parseResponses(text: string): Answer[] {
  const answers: Answer[] = [];
  let rest = Buffer.from(text);
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const [statusLine, ...lines] = rest.subarray(0, headEnd).toString().split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    answers.push({ status: Number(statusLine!.split(' ')[1]), headers, text: rest.subarray(headEnd + 4, headEnd + 4 + length).toString() });
    rest = rest.subarray(headEnd + 4 + length);
  }
  return answers;
}

describe('direct lane while the app closes', () => {
  it('finishes a call in flight (closing its connection) and refuses calls that arrive later (503)', async () => {
    const server = await startTestServer();
    let stopping: Promise<void> | null = null;
    try {
      const userId = await createRelayUser(server.ctx, { quota: 100_000_000 });
      const { apiKey } = await createRelayToken(server.ctx, userId);
      // The mock answers the 'slow' key after 300 ms: the calls are in flight when the close begins.
      await createRelayChannel(server.ctx, { key: 'slow', baseURL: mock.url, models: ['gpt-4o-mini', 'text-embedding-3-small'] });
      const { port } = new URL(server.url);
      const connect = () => net.connect(Number(port), '127.0.0.1');

      const laneSocket = connect();
      const laneRead = readUntilClosed(laneSocket);
      laneSocket.write(rawHttpPost('/v1/chat/completions', apiKey, chatBody()));
      // A call Fastify serves keeps its connection busy; a second call is pipelined behind it once closing.
      const busySocket = connect();
      const busyRead = readUntilClosed(busySocket);
      // (The route reads the model from the body, not from the path.)
      busySocket.write(
        rawHttpPost(
          '/v1/engines/text-embedding-3-small/embeddings',
          apiKey,
          JSON.stringify({ model: 'text-embedding-3-small', input: 'abcd' }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 100));

      stopping = server.stop();
      await new Promise((resolve) => setTimeout(resolve, 30));
      busySocket.write(rawHttpPost('/v1/chat/completions', apiKey, chatBody()));

      const [inFlight] = parseResponses(await laneRead);
      expect(inFlight?.status, inFlight?.text).toBe(200);
      expect(JSON.parse(inFlight!.text).choices[0].message.content).toBe('Hello from the mock upstream.');
      expect(inFlight!.headers.connection).toBe('close');

      const [busy, late] = parseResponses(await busyRead);
      expect(busy?.status, busy?.text).toBe(200);
      expect(JSON.parse(busy!.text).data).toHaveLength(1);
      // A call arriving while the server drains is refused before the lane and Fastify (lifecycle.ts).
      expect(late?.status, late?.text).toBe(503);
      expect(late!.headers.connection).toBe('close');
      expect(JSON.parse(late!.text)).toMatchObject({ error: { code: 'server_shutting_down', type: 'server_error' } });
    } finally {
      await (stopping ?? server.stop());
    }
  });
});
