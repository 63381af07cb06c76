import WebSocket from 'ws';
import { redactUpstreamText } from '../errors.js';

/** Bytes queued on the receiving side above which the sending side is paused, and where it resumes. */
const highWaterBytes = 4 * 1024 * 1024;
const lowWaterBytes = 1024 * 1024;
/** How long a side may take to finish its closing handshake before it is terminated. */
const closeGraceMs = 5_000;

type Frame = WebSocket.RawData;

export interface BridgeEvents {
  /** Each upstream frame before it is forwarded (usage counting); a frame it returns is sent instead. */
  onUpstreamFrame(frame: Buffer, isBinary: boolean): Buffer | undefined;
  /** Once, when the upstream socket has closed (the session is over for billing). */
  onUpstreamClosed(): void;
  /**
   * An upstream message too large to relay (ws has closed the upstream): an event it returns is sent
   * to the client before the client is closed.
   */
  onUpstreamTooLarge(): string;
}

const asBuffer = (data: Frame): Buffer => (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data));

/** Close codes a peer may send (RFC 6455 §7.4); 1005/1006 only describe what happened. */
function sendableCode(code: number, fallback: number): number {
  const isValid = (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
  return isValid ? code : fallback;
}

/** A close reason fits in 123 bytes. */
function shortReason(reason: Buffer | string): string {
  const text = reason.toString();
  return Buffer.byteLength(text) <= 123
    ? text
    : Buffer.from(text)
        .subarray(0, 120)
        .toString('utf8')
        .replace(/\uFFFD+$/, '');
}

function closeSocket(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === WebSocket.CLOSED) return;
  if (socket.readyState === WebSocket.OPEN) socket.close(code, reason);
  const timer = setTimeout(() => socket.terminate(), closeGraceMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/**
 * One direction: frames from `from` are sent to `to` unchanged; `from` pauses while `to` is backed up.
 * While paused, `onStalled` runs once `to` has taken none of what waits for `stallMs` (a reader that
 * stopped, not a slow one: every frame it takes starts the wait again).
 */
function forward(
  from: WebSocket,
  to: WebSocket,
  stallMs: number,
  onStalled: () => void,
  onFrame?: (frame: Buffer, isBinary: boolean) => Buffer | undefined,
): (data: Frame, isBinary: boolean) => void {
  let isPaused = false;
  let stall: NodeJS.Timeout | null = null;
  const stopWatching = () => {
    if (stall !== null) clearTimeout(stall);
    stall = null;
  };
  to.once('close', stopWatching);
  from.once('close', stopWatching);
  const onSent = () => {
    if (!isPaused) return;
    if (to.bufferedAmount > lowWaterBytes) {
      stall?.refresh();
      return;
    }
    isPaused = false;
    stopWatching();
    from.resume();
  };
  return (data, isBinary) => {
    const raw = asBuffer(data);
    const frame = onFrame?.(raw, isBinary) ?? raw;
    if (to.readyState !== WebSocket.OPEN) return;
    to.send(frame, { binary: isBinary }, onSent);
    if (!isPaused && to.bufferedAmount > highWaterBytes) {
      isPaused = true;
      from.pause();
      stall = setTimeout(() => {
        stall = null;
        onStalled();
      }, stallMs);
    }
  };
}

/**
 * Relays a realtime session: every frame both ways unchanged (text stays text, binary stays binary),
 * with backpressure; when one side closes, the other is closed with the same code (1005/1006 become
 * 1000 / 1011 toward the client and 1000 / 1001 toward the upstream) and reason (the upstream's redacted).
 */
export class RealtimeBridge {
  private hasUpstreamClosed = false;

  /**
   * `fromClient` / `fromUpstream`: frames each side sent before the bridge existed (while the
   * upstream was connecting, and with its handshake); both sockets arrive paused. A side that reads
   * nothing of what waits for it for `stallMs` ends the session (it would hold both connections, the
   * hold and its slots for as long as it stays connected): its connection is dropped, and the client
   * of a stalled upstream gets close 1011.
   */
  constructor(
    private readonly client: WebSocket,
    private readonly upstream: WebSocket,
    events: BridgeEvents,
    fromClient: Array<[Frame, boolean]>,
    fromUpstream: Array<[Frame, boolean]>,
    stallMs: number,
  ) {
    // A stalled side would not read a close frame either: it is dropped, and the other side, paused
    // for it, reads on to close in order (the upstream's frames still count toward the bill).
    const toUpstream = forward(client, upstream, stallMs, () => {
      client.resume();
      upstream.terminate();
    });
    const toClient = forward(
      upstream,
      client,
      stallMs,
      () => {
        upstream.resume();
        client.terminate();
      },
      (frame, isBinary) => events.onUpstreamFrame(frame, isBinary),
    );
    upstream.removeAllListeners('message');
    for (const [data, isBinary] of fromUpstream) toClient(data, isBinary);
    for (const [data, isBinary] of fromClient) toUpstream(data, isBinary);
    client.on('message', toUpstream);
    upstream.on('message', toClient);
    // 'close' follows; the client is closed from there.
    let wasTooLarge = false;
    upstream.on('error', (error: Error & { code?: string }) => {
      if (error.code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
      wasTooLarge = true;
      if (client.readyState === WebSocket.OPEN) client.send(events.onUpstreamTooLarge());
    });
    client.on('close', (code, reason) => {
      closeSocket(upstream, code === 1006 ? 1001 : sendableCode(code, 1000), shortReason(reason));
    });
    const onUpstreamClose = (code: number, reason: Buffer | string) => {
      if (this.hasUpstreamClosed) return;
      this.hasUpstreamClosed = true;
      events.onUpstreamClosed();
      // The reason is upstream text, as an error event's message is: no key, URL or address reaches the client.
      // A message too large is the upstream's failure, not the client's 1009.
      const clientCode = code === 1006 || wasTooLarge ? 1011 : sendableCode(code, 1000);
      closeSocket(client, clientCode, shortReason(redactUpstreamText(reason.toString())));
    };
    upstream.on('close', onUpstreamClose);
    // Closed while the bridge was being set up: end the session now.
    if (upstream.readyState === WebSocket.CLOSED) onUpstreamClose(1006, '');
    client.resume();
    upstream.resume();
  }

  get isUpstreamClosed(): boolean {
    return this.hasUpstreamClosed;
  }

  /** Ends the session from the gateway's side (quota exhausted, shutdown). */
  close(clientCode: number, reason: string): void {
    closeSocket(this.client, clientCode, shortReason(reason));
    closeSocket(this.upstream, 1000, '');
  }

  /** Drops both connections at once (shutdown). */
  terminate(): void {
    this.upstream.terminate();
    this.client.terminate();
  }
}
