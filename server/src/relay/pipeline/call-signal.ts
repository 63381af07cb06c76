import type { ServerResponse } from 'node:http';

/**
 * The abort signal of one relay call, aborted when the client goes away before its answer is done.
 * A stand-in for AbortController/AbortSignal, which cost several µs per request (EventTarget set-up,
 * undici's addEventListener/removeEventListener on it): its users only read `aborted`/`reason` and
 * add or remove 'abort' listeners (undici's request takes an EventTarget or EventEmitter signal).
 */
export class CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<(event: { type: 'abort' }) => void> | null = null;

  constructor(private readonly out: ServerResponse) {}

  /** The client response's 'close' listener: a close before the answer finished aborts the call. */
  readonly onClientClose = (): void => {
    if (!this.out.writableFinished) this.abort();
  };

  addEventListener(type: string, listener: (event: { type: 'abort' }) => void): void {
    if (type === 'abort' && !this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(type: string, listener: (event: { type: 'abort' }) => void): void {
    const index = type === 'abort' && this.listeners ? this.listeners.indexOf(listener) : -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.listeners;
    this.listeners = null;
    if (listeners) for (const listener of listeners) listener.call(this, { type: 'abort' });
  }

  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
