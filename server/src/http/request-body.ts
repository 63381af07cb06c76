import type { IncomingMessage } from 'node:http';
import { AppError } from '../lib/errors.js';

/**
 * Reading request bodies within bounds: one body may not pass its route's limit, and all bodies
 * being read at once may not hold more than the instance's budget (MAX_BODY_MEMORY_MB). The bytes of
 * a body count from its first chunk until it has been parsed; a body the budget cannot take is
 * refused with a 503 and Retry-After, before more of it is read. Fastify's JSON parser
 * (json-parser.ts) and the relay's direct lane both read through here.
 *
 * A refused request's unread body is drained, not left in the socket: closing a connection while
 * the client still sends makes its kernel reset it, and the client sees a broken pipe instead of the
 * answer (the OpenAI SDK then retries the upload). Draining is bounded; past the bound the
 * connection is closed.
 */

export class BodyBudget {
  private inUse = 0;

  constructor(readonly limitBytes: number) {}

  /** Takes `bytes` from the budget; false (nothing taken) when it would pass the limit. */
  take(bytes: number): boolean {
    if (this.inUse + bytes > this.limitBytes) return false;
    this.inUse += bytes;
    return true;
  }

  give(bytes: number): void {
    this.inUse = Math.max(0, this.inUse - bytes);
  }

  get bytesInUse(): number {
    return this.inUse;
  }
}

export const tooLargeMessage = '请求体过大';
export const busyMessage = '服务器正在读取的请求过多，请稍后重试';

export function bodyTooLarge(): AppError {
  return new AppError('payload_too_large', tooLargeMessage);
}

function bodyBudgetFull(): AppError {
  const error = new AppError('busy', busyMessage);
  error.retryAfterMs = 1000;
  return error;
}

/** The client went away before its body was whole (answered as a 4xx nobody reads, not logged as a fault). */
export class RequestAborted extends Error {
  readonly statusCode = 400;
  readonly code = 'ECONNRESET';
  constructor() {
    super('the client closed the request before its body was complete');
  }
}

/**
 * Reads a body of at most `limit` bytes and hands it to `parse`; the bytes stay counted against the
 * budget until `parse` returns. Rejects with a 413 (over the limit, declared or sent) or a 503 (the
 * budget is full); the rest of a refused body is left for `drainRequest`.
 */
export function readBody<T>(request: IncomingMessage, limit: number, budget: BodyBudget, parse: (bytes: Buffer) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      reject(bodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let isDone = false;
    const finish = (error: Error | null, value?: T) => {
      if (isDone) return;
      isDone = true;
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onAborted);
      chunks.length = 0;
      budget.give(size);
      if (error) reject(error);
      else resolve(value as T);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return finish(bodyTooLarge());
      if (!budget.take(chunk.length)) return finish(bodyBudgetFull());
      size += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => {
      let value: T;
      try {
        value = parse(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      } catch (error) {
        return finish(error as Error);
      }
      finish(null, value);
    };
    const onError = () => finish(new RequestAborted());
    // The client went away mid-body: nobody is left to answer; the error only ends the read.
    const onAborted = () => finish(new RequestAborted());
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}

/**
 * Whether what is left of a refused body is small enough to drain (`drainRequest`): a body declared
 * larger than that gets `Connection: close` with its answer instead.
 */
export function canDrain(request: IncomingMessage, maxBytes: number): boolean {
  const declared = request.headers['content-length'];
  return request.complete || declared === undefined || Number(declared) <= maxBytes;
}

/**
 * Reads and discards what is left of a refused request's body, so the client gets to read the answer;
 * after `maxBytes` more the connection is closed (a client may send without end). The request
 * timeout (REQUEST_BODY_TIMEOUT) still bounds how long it may take.
 */
export function drainRequest(request: IncomingMessage, maxBytes: number): void {
  if (request.complete || request.destroyed) return;
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > maxBytes) request.socket.destroy();
  });
  request.on('error', () => undefined);
  request.resume();
}
