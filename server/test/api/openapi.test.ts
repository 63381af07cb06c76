import fs from 'node:fs';
import path from 'node:path';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const apiDir = path.resolve(import.meta.dirname, '../../src/api');
const routeFiles = fs
  .readdirSync(apiDir, { recursive: true, encoding: 'utf8' })
  .filter((file) => /(^|\/)(routes|[\w-]+-routes)\.ts$/.test(file) && file !== 'routes.ts');
const partOf = { body: 'body', query: 'querystring', params: 'params' } as const;

/** Each route registration in the sources: its method, path, the doc(...) it declares and the handler's text. */
function sourceRoutes() {
  const found: Array<{ file: string; method: string; url: string; doc: string; handler: string }> = [];
  for (const file of routeFiles) {
    const source = fs.readFileSync(path.join(apiDir, file), 'utf8');
    const starts = [...source.matchAll(/\bapi\.(get|post|put|delete|patch)\(\s*'([^']+)',/g)];
    starts.forEach((match, index) => {
      const block = source.slice(match.index, starts[index + 1]?.index ?? source.length);
      const docAt = block.indexOf('schema: doc(');
      const handlerAt = block.indexOf('async (');
      found.push({
        file,
        method: match[1]!,
        url: `/api${match[2]}`,
        doc: docAt >= 0 && (handlerAt < 0 || docAt < handlerAt) ? block.slice(docAt, handlerAt < 0 ? undefined : handlerAt) : '',
        handler: handlerAt >= 0 ? block.slice(handlerAt) : block,
      });
    });
  }
  return found;
}

const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

describe('the OpenAPI document of the management API', () => {
  let server: TestServer;
  const routes: RouteOptions[] = [];
  let document: any;

  beforeAll(async () => {
    server = await startTestServer({ onRoute: (route) => routes.push(route) });
    const response = await fetch(`${server.url}/api/openapi.json`);
    expect(response.status).toBe(200);
    document = await response.json();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const apiRoutes = () =>
    routes
      .filter((route) => route.url.startsWith('/api/') && !route.url.startsWith('/api/docs') && route.url !== '/api/openapi.json')
      .flatMap((route) =>
        (Array.isArray(route.method) ? route.method : [route.method])
          .filter((method) => method !== 'HEAD')
          .map((method) => ({ method: method.toLowerCase(), url: route.url, schema: route.schema as any })),
      );

  it('is OpenAPI 3 with the envelope, the sign-in schemes and only /api routes', () => {
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.title).toBe('ModelGate management API');
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['accessToken', 'session', 'userId']);
    const paths = Object.keys(document.paths);
    expect(paths.length).toBeGreaterThan(60);
    expect(paths.every((url) => url.startsWith('/api/'))).toBe(true);
    expect(paths.some((url) => url.startsWith('/v1') || url.startsWith('/api/docs'))).toBe(false);
  });

  it('covers every /api route with a summary, a tag and the envelope; lists the ones that lack it', () => {
    const registered = apiRoutes();
    expect(registered.length).toBeGreaterThan(80);
    const missing = registered.filter(
      ({ method, url, schema }) => !schema?.summary || !schema?.tags?.length || !document.paths[openApiPath(url)]?.[method],
    );
    expect(missing.map(({ method, url }) => `${method.toUpperCase()} ${url}`)).toEqual([]);
    for (const { method, url } of registered)
      expect(document.paths[openApiPath(url)][method].responses['200'], `${method} ${url}`).toBeDefined();
  });

  it('every input a handler parses is the schema its route declares (checked against the source, so it cannot drift)', () => {
    const declared = sourceRoutes();
    expect(declared.length).toBe(apiRoutes().length);
    const problems: string[] = [];
    for (const route of declared) {
      const name = `${route.method.toUpperCase()} ${route.url} (${route.file})`;
      if (!route.doc) {
        problems.push(`${name}: no schema: doc(...)`);
        continue;
      }
      for (const parsed of route.handler.matchAll(/parseInput\((\w+),\s*request\.(body|query|params)\)/g)) {
        const part = partOf[parsed[2] as keyof typeof partOf];
        const declaredPart = new RegExp(`\\b${part}: [^}]*\\b${parsed[1]}\\b`).test(route.doc);
        if (!declaredPart) problems.push(`${name}: parses request.${parsed[2]} with ${parsed[1]}, not declared as ${part}`);
      }
      for (const [field, part] of Object.entries(partOf)) {
        if (route.handler.includes(`request.${field}`) && !route.doc.includes(`${part}:`))
          problems.push(`${name}: reads request.${field} without a ${part} schema`);
      }
      if (route.url.includes('/:') && !route.doc.includes('params:')) problems.push(`${name}: has path parameters without a params schema`);
    }
    expect(problems).toEqual([]);
  });

  it('documents the fields: login body, token list query, path parameters', () => {
    const login = document.paths['/api/user/login'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(login.properties)).toEqual(expect.arrayContaining(['username', 'password']));
    const tokens = document.paths['/api/token/'].get.parameters.map((parameter: any) => `${parameter.in}:${parameter.name}`);
    expect(tokens).toEqual(expect.arrayContaining(['query:p', 'query:page_size']));
    const token = document.paths['/api/token/{id}'].get.parameters;
    expect(token).toEqual([expect.objectContaining({ in: 'path', name: 'id', required: true })]);
    expect(document.paths['/api/token/'].get.tags).toEqual(['tokens']);
  });

  it('every /api route declares what it answers: the schema of its data, or a media type of its own', () => {
    const undeclared = apiRoutes().filter(({ schema }) => {
      const answer = schema?.response?.[200];
      if (answer && typeof answer.safeParse !== 'function') return !answer.content;
      const data = answer?.shape?.data;
      return !data || data.def?.type === 'unknown';
    });
    expect(undeclared.map(({ method, url }) => `${method.toUpperCase()} ${url}`)).toEqual([]);
  });

  it("documents the answers: the envelope around each route's data", () => {
    const answer = document.paths['/api/token/'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(answer.properties)).toEqual(['success', 'message', 'data']);
    const page = answer.properties.data;
    expect(Object.keys(page.properties)).toEqual(['items', 'page', 'page_size', 'total']);
    expect(page.properties.items.items.properties.key.type).toBe('string');
    expect(page.properties.items.items.additionalProperties).toBe(false);
  });

  it('documents every media type a non-JSON route answers', () => {
    const exported = document.paths['/api/audit/export'].get.responses['200'];
    expect(Object.keys(exported.content)).toEqual(['text/csv', 'application/x-ndjson']);
    expect(exported.content['text/csv'].schema.type).toBe('string');
  });

  it("validation is still the routes' own (the spec's messages), not the schema compiler's", async () => {
    const response = await fetch(`${server.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 42 }),
    });
    const body = await response.json();
    expect(body.success).toBe(false);
    expect(typeof body.message).toBe('string');
    expect(body.message).not.toMatch(/body\/|must be/);
  });

  it('has a browsable page at /api/docs', async () => {
    const page = await fetch(`${server.url}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('swagger');
  });
});
