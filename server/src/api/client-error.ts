import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { fail } from '../lib/envelope.js';
import { isRelayPath } from '../lib/relay-paths.js';
import { languageOf, translate } from '../lib/i18n/index.js';
import { openAiError } from './error-handler.js';

type ClientError = Error & { code?: string; rawPacket?: Buffer };
/** Node's socket of an HTTP connection: the response in progress, if a request was read (Node's own check, `_http_server.js`). */
type HttpSocket = Socket & { _httpMessage?: http.ServerResponse | null };

/** The status, message and code of a request Node could not read. */
function refusalOf(error: ClientError): [number, string, string] {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, '请求超时', 'request_timeout'];
  if (error.code === 'HPE_HEADER_OVERFLOW') return [431, '请求头过大', 'headers_too_large'];
  return [400, '请求无法解析', 'bad_request'];
}

/**
 * The path and Accept-Language of the request: from the request Node read (a body too slow), else
 * from the bytes of the head Node kept, when they begin with a request line.
 */
function headOf(
  error: ClientError,
  response: http.ServerResponse | null | undefined,
): { path: string; acceptLanguage: string | undefined } {
  const request = response?.req;
  if (request?.url) return { path: request.url, acceptLanguage: request.headers['accept-language'] };
  const raw = error.rawPacket;
  const text = raw ? raw.toString('latin1', 0, Math.min(raw.length, 8192)) : '';
  const path = /^[A-Z]{3,10} (\/[^\s?]*)/.exec(text)?.[1] ?? '';
  const acceptLanguage = /\r\naccept-language:[ \t]*([^\r\n]{1,200})/i.exec(text)?.[1];
  return { path, acceptLanguage };
}

/**
 * Node's refusals of a request it could not read (a head with a forbidden character or past the
 * header size limit, or a client too slow with its request): answered in the caller's shape and
 * language, as far as the bytes read tell the path (an OpenAI error on relay paths, the management
 * envelope elsewhere), then the connection is closed. Fastify's default answer has neither shape.
 */
export function answerClientError(this: FastifyInstance, connectionError: Error, httpSocket: Socket): void {
  const error = connectionError as ClientError;
  const socket = httpSocket as HttpSocket;
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message, code] = refusalOf(error);
  const response = socket._httpMessage;
  const { path, acceptLanguage } = headOf(error, response);
  const language = languageOf(acceptLanguage);
  const told = translate(message, language);
  const body = JSON.stringify(path !== '' && isRelayPath(path) ? openAiError(told, 'invalid_request_error', code) : fail(told));
  this.log.debug({ err: error }, 'unreadable client request');
  // Not into an answer already begun.
  if (socket.writable && !response?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
