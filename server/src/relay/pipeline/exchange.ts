import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { canonicalPath } from '../../lib/relay-paths.js';

/**
 * One client call as the relay pipeline sees it, whichever front served it: a Fastify route
 * (`fastifyExchange`) or the direct lane of Node's HTTP server (`relay/direct-lane.ts`).
 */
export interface RelayExchange {
  /** The client's address: the first one, from the socket peer leftwards through X-Forwarded-For, that is not a TRUST_PROXY proxy. */
  readonly ip: string;
  /** The request path without its query (log rows). */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The client's response: its 'close' aborts the upstream call; streams are written to it. */
  readonly raw: ServerResponse;
  /** Writes the 200 head of a streamed answer; the caller then writes the body to `raw`. */
  startStream(headers: OutgoingHttpHeaders): void;
  /** Sends a whole answer. */
  send(status: number, contentType: string, body: Buffer | string): void;
}

/** The exchange of a Fastify relay route (inbound formats, multipart audio, the playground). */
export function fastifyExchange(request: FastifyRequest, reply: FastifyReply): RelayExchange {
  return {
    ip: request.ip,
    path: canonicalPath(request.url),
    headers: request.headers,
    raw: reply.raw,
    startStream(headers) {
      reply.hijack();
      reply.raw.writeHead(200, { ...reply.getHeaders(), ...headers } as OutgoingHttpHeaders);
    },
    send(status, contentType, body) {
      reply.code(status).header('content-type', contentType).send(body);
    },
  };
}

export const sseHeaders: OutgoingHttpHeaders = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};
