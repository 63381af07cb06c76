import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { fail } from '../lib/envelope.js';
import { isRelayPath, openAiError } from './error-handler.js';
import type { SecurityHeaders } from './security-headers.js';

const placeholderPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ModelGate</title></head>
<body><h1>ModelGate</h1><p>The console has not been built. Run <code>npm run build</code>.</p></body></html>`;

/**
 * Serves the built console with SPA fallback: any unknown non-API GET gets index.html so deep links
 * load the app. Hashed assets are cached for a year; index.html is always revalidated. The build
 * writes brotli and gzip copies beside each text file (web/vite-plugin-precompress.ts); a client
 * that accepts one gets it with `Content-Encoding`, and every answer says `Vary: Accept-Encoding`.
 * The copies are not routes of their own.
 */
export async function registerConsole(app: FastifyInstance, distDir: string, securityHeaders: SecurityHeaders): Promise<void> {
  const indexFile = path.join(distDir, 'index.html');
  const hasConsole = fs.existsSync(indexFile);
  if (hasConsole) {
    await app.register(fastifyStatic, {
      root: distDir,
      wildcard: false,
      index: false,
      preCompressed: true,
      globIgnore: ['**/*.br', '**/*.gz'],
      setHeaders(reply, filePath) {
        securityHeaders.apply(reply);
        const isHashedAsset = filePath.includes(`${path.sep}assets${path.sep}`);
        reply.header('Cache-Control', isHashedAsset ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    if (isRelayPath(request.url)) {
      return reply
        .code(404)
        .send(openAiError(`Invalid URL (${request.method} ${request.url.split('?')[0]})`, 'invalid_request_error', 'not_found'));
    }
    securityHeaders.apply(reply);
    if (request.method !== 'GET' && request.method !== 'HEAD') return reply.code(404).send(fail('Not Found'));
    // A missing hashed asset (an old build's chunk) is a 404, not the page served as script.
    if (request.url.startsWith('/assets/')) return reply.code(404).type('text/plain').send('Not Found');
    reply.header('Cache-Control', 'no-cache');
    if (!hasConsole) return reply.type('text/html').send(placeholderPage);
    return reply.type('text/html').sendFile('index.html');
  });
}
