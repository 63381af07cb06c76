import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { requestLanguage } from '../../lib/i18n/index.js';
import { clientStatus, retryAfterHeaders, toRelayError } from '../errors.js';

/**
 * The error handler of the relay's Fastify routes and of the Realtime upgrade: the error as the caller
 * is told it (errors.ts toRelayError, in its language), with Retry-After when it says how long to wait.
 */
export function sendRelayError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (reply.sent || reply.raw.headersSent) return;
  const relayError = toRelayError(error, request.log, requestLanguage(request));
  const wait = retryAfterHeaders(relayError);
  if (wait) reply.headers(wait);
  return reply.code(clientStatus(relayError)).send(relayError.toBody());
}
