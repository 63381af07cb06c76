import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import { busyMessage, type BodyBudget } from '../../http/request-body.js';
import type { Language } from '../../lib/i18n/index.js';
import { RelayError } from '../errors.js';
import { errorEvent } from './error-frames.js';

/** Close code when the instance cannot hold a client's message in memory now (RFC 6455 1013, try again later). */
const busyCloseCode = 1013;
/** How long a refused client is given to answer the close before its connection is dropped. */
const busyCloseGraceMs = 1000;

/**
 * Counts what a Realtime client has sent since its last whole message against the instance's budget for
 * request bodies (http/request-body.ts, MAX_BODY_MEMORY_MB): ws keeps a message's frames in memory until
 * the message is whole, so sessions each sending a large message at once could together hold far more
 * than that budget. `raw` is the upgraded TCP socket, read after ws has read each piece; what a whole
 * message held is given back when ws emits it (one piece may stay counted until the next message),
 * and everything when the session closes. When the budget is full the client gets an `error` event
 * and close 1013, and nothing more of it is read.
 */
export function countClientFrames(raw: Duplex, client: WebSocket, budget: BodyBudget, language: Language): void {
  let held = 0;
  const giveBack = () => {
    budget.give(held);
    held = 0;
  };
  const onData = (piece: Buffer) => {
    if (budget.take(piece.length)) {
      held += piece.length;
      return;
    }
    raw.off('data', onData);
    giveBack();
    if (client.readyState === client.OPEN) {
      const busy = new RelayError(503, 'busy', busyMessage, true, 'server_error');
      client.send(errorEvent(busy, language));
      client.close(busyCloseCode, 'busy');
    }
    // The rest of the message is not read: the client has a moment to answer the close, then is dropped.
    raw.pause();
    setTimeout(() => client.terminate(), busyCloseGraceMs).unref();
  };
  raw.on('data', onData);
  client.on('message', giveBack);
  client.once('close', () => {
    raw.off('data', onData);
    giveBack();
  });
}
