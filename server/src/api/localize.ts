import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestLanguage, translate } from '../lib/i18n/index.js';

/**
 * preSerialization hook of /api: the answer's `message` in the caller's language (the console sends
 * `Accept-Language: en` or `zh`; others are answered by their header, English without one). Every
 * answer passes here, thrown errors included (the error handler's envelope is serialized on the
 * route's context), so no use case or route deals with languages. Only `message` is translated;
 * data texts the console shows are translated by the use cases that read them (log details, group
 * descriptions, channel form hints).
 */
export function localizeMessage(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
): void {
  const message = (payload as { message?: unknown } | null)?.message;
  if (typeof message !== 'string' || message === '') return done(null, payload);
  const translated = translate(message, requestLanguage(request));
  done(null, translated === message ? payload : { ...(payload as object), message: translated });
}
