import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { envelopeOf } from '@modelgate/shared';
import { z } from 'zod';

/** What a route takes (the zod schemas its handler parses) and what it answers. */
export interface RouteContract {
  body?: z.ZodType;
  querystring?: z.ZodType;
  params?: z.ZodType;
  /** The schema of the envelope's `data` when the answer succeeds (packages/shared/src/schemas). */
  data?: z.ZodType;
  /** Fields a few routes answer beside `data` in the envelope (a channel test's `time`). */
  beside?: z.ZodRawShape;
  /** A route that answers something other than the JSON envelope: its media types (CSV export, a provider's callback); `data` then declares its body (a string). */
  produces?: string | readonly string[];
}

/**
 * A route's documentation: its domain (tag), what it does, the zod schemas its handler parses
 * (`parseInput(schema, request.body|query|params)`) — the same objects, so the document cannot say
 * other than what the route checks (the OpenAPI test also matches them against the handler's source) —
 * and the schema of what it answers, which the API suite checks every answer against (response-check.ts).
 * Validation stays with parseInput and its messages: the /api scope's validator compiler passes data through.
 */
export function doc(tag: string, summary: string, contract: RouteContract = {}): FastifySchema {
  const { data, beside, produces, ...input } = contract;
  const types = typeof produces === 'string' ? [produces] : produces;
  const response = types
    ? // A zod schema (the body's text, `data` when given), as the zod transform of the document reads only zod schemas.
      {
        200: {
          description: `${types.join(' or ')} (not the JSON envelope)`,
          content: Object.fromEntries(types.map((type) => [type, { schema: data ?? z.string() }])),
        },
      }
    : { 200: envelopeOf(data ?? z.unknown(), beside) };
  return { tags: [tag], summary, ...input, response } as FastifySchema;
}

/** Schemas in /api route options are documentation: parseInput checks the input (with the spec's messages). */
export function documentOnly(api: FastifyInstance): void {
  api.setValidatorCompiler(() => (data) => ({ value: data }));
  // Answers are written as the handlers build them (no serializer strips or reorders fields).
  api.setSerializerCompiler(() => (data) => JSON.stringify(data));
}

/**
 * The OpenAPI 3 document of the management API at GET /api/openapi.json and a browsable page at
 * /api/docs, generated from the routes' schemas (registered before the routes, so it sees them all).
 * Only /api routes are in it; the relay speaks the providers' own, documented formats.
 */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'ModelGate management API',
        version,
        description:
          'Answers are the envelope {success, message, data}. Sign in with POST /api/user/login (session cookie) or send an access token as `Authorization` together with `New-Api-User: <user id>`.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'session' },
          accessToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
          userId: { type: 'apiKey', in: 'header', name: 'New-Api-User' },
        },
      },
      security: [{ session: [] }, { accessToken: [], userId: [] }],
    },
    transform: (input) => {
      if (!input.url.startsWith('/api/') || input.url.startsWith('/api/docs') || input.url === '/api/openapi.json') {
        return { schema: { ...input.schema, hide: true } as FastifySchema, url: input.url };
      }
      return jsonSchemaTransform(input);
    },
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/api/docs', staticCSP: true });
  app.get('/api/openapi.json', { schema: { hide: true } as FastifySchema }, async () => app.swagger());
}
