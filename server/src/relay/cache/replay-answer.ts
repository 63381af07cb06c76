import type { ServerResponse } from 'node:http';
import { sseHeaders, type RelayExchange } from '../pipeline/exchange.js';
import type { StoredAnswer } from './answer-store.js';

/** Resolves when the client can take more (drain) or is gone (close). */
function drained(out: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/**
 * Gives a cached answer to the client as the original call gave it: a whole answer in one send, a
 * stream as the same frames, one write each, with the client's backpressure honoured. A client that
 * leaves stops the replay.
 */
export async function replayAnswer(exchange: RelayExchange, answer: StoredAnswer): Promise<void> {
  if (!answer.isStream) {
    exchange.send(answer.status, answer.contentType, answer.chunks.length === 1 ? answer.chunks[0]! : Buffer.concat(answer.chunks));
    return;
  }
  exchange.startStream({ ...sseHeaders, 'content-type': answer.contentType || sseHeaders['content-type'] });
  const out = exchange.raw;
  const last = answer.chunks.length - 1;
  for (let index = 0; index < last; index += 1) {
    if (out.destroyed) return;
    if (!out.write(answer.chunks[index]!)) await drained(out);
  }
  if (!out.destroyed) out.end(last >= 0 ? answer.chunks[last] : undefined);
}
