import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fail, ok } from '../../src/lib/envelope.js';
import { doc, documentOnly } from '../../src/api/openapi.js';
import { installResponseCheck } from '../../src/api/response-check.js';

/** The contract check on a Fastify of its own, with routes planted to answer right and wrong. */
describe('the API contract check', () => {
  let dir: string;
  let app: FastifyInstance;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'api-contract-'));
    app = Fastify();
    await app.register(
      async (api) => {
        documentOnly(api);
        installResponseCheck(api, dir);
        const item = z.strictObject({ id: z.number().int(), name: z.string() });
        api.get('/right', { schema: doc('t', 'right', { data: item }) }, async () => ok({ id: 1, name: 'a' }));
        api.get('/extra', { schema: doc('t', 'extra field', { data: item }) }, async () => ok({ id: 1, name: 'a', password: 'x' }));
        api.get('/wrong-type', { schema: doc('t', 'wrong type', { data: item }) }, async () => ok({ id: '1', name: 'a' }));
        api.get('/refused', { schema: doc('t', 'refused', { data: item }) }, async () => fail('不行'));
        api.get(
          '/timed',
          { schema: doc('t', 'refused with a field beside', { data: z.null(), beside: { time: z.number() } }) },
          async (request) =>
            (request.query as { as?: string }).as === 'text' ? { ...fail('慢'), time: 'slow' } : { ...fail('慢'), time: 1.5 },
        );
        api.get('/csv', { schema: doc('t', 'csv', { produces: 'text/csv' }) }, async (_request, reply) =>
          reply.type('text/csv').send('a,b\n'),
        );
      },
      { prefix: '/api' },
    );
  });
  afterEach(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const covered = () =>
    readdirSync(dir)
      .filter((name) => name.startsWith('covered-'))
      .flatMap((name) => readFileSync(path.join(dir, name), 'utf8').split('\n'))
      .filter(Boolean)
      .sort();
  const violations = () =>
    readFileSync(path.join(dir, 'violations.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));

  it('passes a matching answer through untouched and records the route as checked', async () => {
    const answer = await app.inject('/api/right');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ success: true, message: '', data: { id: 1, name: 'a' } });
    expect(covered()).toEqual(['GET /api/right']);
    expect(readFileSync(path.join(dir, 'routes.txt'), 'utf8').split('\n').filter(Boolean).sort()).toEqual([
      'GET /api/csv',
      'GET /api/extra',
      'GET /api/refused',
      'GET /api/right',
      'GET /api/timed',
      'GET /api/wrong-type',
    ]);
  });

  it('turns an answer with an undeclared field or a wrong type into a 500 naming the field, and writes it down', async () => {
    const extra = await app.inject('/api/extra');
    expect(extra.statusCode).toBe(500);
    expect(extra.json().message).toMatch(/GET \/api\/extra .*password/);
    const wrong = await app.inject('/api/wrong-type');
    expect(wrong.statusCode).toBe(500);
    expect(wrong.json().message).toMatch(/data\.id/);
    expect(violations().map((violation) => violation.route)).toEqual(['GET /api/extra', 'GET /api/wrong-type']);
    expect(covered()).toEqual([]);
  });

  it('checks a refusal against the refusal envelope without counting the route as checked', async () => {
    const answer = await app.inject('/api/refused');
    expect(answer.json()).toEqual({ success: false, message: '不行', data: null });
    expect(covered()).toEqual([]);
  });

  it('lets a refusal carry the fields its route declares beside data, checked by their schema', async () => {
    expect((await app.inject('/api/timed')).json()).toEqual({ success: false, message: '慢', data: null, time: 1.5 });
    const wrong = await app.inject('/api/timed?as=text');
    expect(wrong.statusCode).toBe(500);
    expect(wrong.json().message).toMatch(/time/);
  });

  it('counts a route of its own media type by its 200 in that type', async () => {
    const answer = await app.inject('/api/csv');
    expect(answer.body).toBe('a,b\n');
    expect(covered()).toEqual(['GET /api/csv']);
  });
});
