import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { failureEnvelope } from '@modelgate/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { z } from 'zod';

/**
 * The contract check of the API suite (MODELGATE_RESPONSE_CHECK_DIR, set by the test configuration;
 * off in production, where no hook is added). Every /api answer is checked against the schema its
 * route declares (openapi.ts doc()):
 * - a success answer against the route's envelope and `data` schema,
 * - a `success: false` answer against the refusal envelope.
 * An answer that does not match becomes a 500 (so the test that made it fails) and is written to
 * violations.jsonl; each route that answered a checked success is written to covered-<pid>.txt, and
 * the declared routes to routes.txt, so `scripts/check-api-contract.mjs` can tell which routes the suite
 * never checked.
 */
export function installResponseCheck(api: FastifyInstance, dir: string): void {
  mkdirSync(dir, { recursive: true });
  const covered = new Set<string>();
  const declared = new Set<string>();
  const routesFile = path.join(dir, 'routes.txt');
  const coveredFile = path.join(dir, `covered-${process.pid}.txt`);
  const violationsFile = path.join(dir, 'violations.jsonl');

  api.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      const key = `${method} ${route.url}`;
      if (declared.has(key)) continue;
      declared.add(key);
      appendFileSync(routesFile, `${key}\n`);
    }
  });

  const cover = (key: string) => {
    if (covered.has(key)) return;
    covered.add(key);
    appendFileSync(coveredFile, `${key}\n`);
  };

  api.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const { method, url } = request.routeOptions;
    if (!url || reply.statusCode >= 500) return payload;
    const key = `${String(method)} ${url}`;
    const declaredAnswer = (request.routeOptions.schema?.response as Record<number, unknown> | undefined)?.[200];
    const isJson = String(reply.getHeader('content-type') ?? '').startsWith('application/json');
    if (!isZod(declaredAnswer)) {
      // A route that declares a media type of its own: a 200 in that type is its answer.
      if (reply.statusCode === 200 && !isJson) cover(key);
      if (!isJson) return payload;
    }
    if (!isJson || typeof payload !== 'string') return payload;
    const body: unknown = JSON.parse(payload);
    const isRefusal = typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
    const schema = isRefusal || reply.statusCode !== 200 || !isZod(declaredAnswer) ? refusalOf(declaredAnswer) : declaredAnswer;
    const result = schema.safeParse(body);
    if (result.success) {
      if (!isRefusal && reply.statusCode === 200) cover(key);
      return payload;
    }
    const problems = result.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(answer)'}: ${issue.message}`);
    appendFileSync(violationsFile, `${JSON.stringify({ route: key, status: reply.statusCode, problems })}\n`);
    reply.code(500);
    return JSON.stringify({ success: false, message: `response of ${key} does not match its declared schema: ${problems.join('; ')}` });
  });
}

/**
 * A refusal's envelope: success false and the message, plus (optional) the fields the route declares
 * beside `data`, as new-api's refusals carry them too (a failed channel test's `time`).
 */
function refusalOf(declared: unknown): z.ZodType {
  const shape = isZod(declared) ? (declared as Partial<z.ZodObject>).shape : undefined;
  const beside = Object.entries(shape ?? {}).filter(([key]) => !['success', 'message', 'data'].includes(key));
  return beside.length === 0
    ? failureEnvelope
    : failureEnvelope.extend(Object.fromEntries(beside.map(([key, field]) => [key, (field as z.ZodType).optional()])));
}

const isZod = (value: unknown): value is z.ZodType =>
  typeof value === 'object' && value !== null && typeof (value as z.ZodType).safeParse === 'function';
