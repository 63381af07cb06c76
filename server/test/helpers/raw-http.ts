import net from 'node:net';

/** What a raw HTTP client saw: the status (0 when no answer was read), the answer's text, and any socket error. */
export interface RawAnswer {
  status: number;
  /** When the answer's head arrived, and when the client finished sending (performance.now()). */
  answeredAt: number;
  sentAt: number;
  head: string;
  body: string;
  socketError: string | null;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers: Record<string, string | number>;
  /** Bytes of body to send (spaces unless `body` is given), declared with Content-Length unless `chunked`. */
  size?: number;
  body?: Buffer | string;
  chunked?: boolean;
  /**
   * `after-sending`: the answer is read only once the whole body is written, as clients that send
   * then read do (a server that cuts the connection early makes them lose the answer).
   * `while-sending`: the answer is read as soon as it comes; the rest of the body is not sent once it has.
   */
  read: 'after-sending' | 'while-sending';
  /** Stop writing after this many body bytes (a client still sending when the answer comes). */
  stopAfter?: number;
  /** How long the connection is kept open after sending, when no whole answer came (default 1500 ms). */
  holdMs?: number;
}

function parse(text: string, socketError: string | null, answeredAt: number, sentAt: number): RawAnswer {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
  return { status: status ? Number(status[1]) : 0, answeredAt, sentAt, head, body: end < 0 ? '' : text.slice(end + 4), socketError };
}

/** Whether `text` holds a whole answer with a Content-Length. */
function isWhole(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end));
  return end >= 0 && length !== null && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]);
}

/** One request over a raw socket, so the order of writing and reading is the test's to choose. */
export function rawRequest(base: string, request: RawRequest): Promise<RawAnswer> {
  const { port, hostname } = new URL(base);
  const body = request.body === undefined ? null : Buffer.from(request.body);
  const size = body ? body.length : (request.size ?? 0);
  const limit = Math.min(size, request.stopAfter ?? size);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    let socketError: string | null = null;
    let isAnswered = false;
    let answeredAt = Infinity;
    let sentAt = Infinity;
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      if (received.includes('\r\n\r\n')) answeredAt = Math.min(answeredAt, performance.now());
      if (request.read === 'while-sending' && received.includes('\r\n\r\n')) isAnswered = true;
      // A whole answer read after sending: done (the server may keep the connection for more).
      if (sentAt !== Infinity && isWhole(received)) socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      socketError = error.code ?? error.message;
    });
    socket.on('close', () => resolve(parse(received, socketError, answeredAt, sentAt)));
    if (request.read === 'after-sending') socket.pause();
    const headers = Object.entries({
      host: 'gateway.test',
      ...request.headers,
      ...(request.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': size }),
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`${request.method ?? 'POST'} ${request.path} HTTP/1.1\r\n${headers}\r\n`);
    const filler = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const finish = () => {
      if (request.chunked && sent >= limit) socket.write('0\r\n\r\n');
      sentAt = performance.now();
      socket.resume();
      if (isWhole(received)) socket.destroy();
      // Long enough for any answer to arrive; the server may also close first.
      setTimeout(() => socket.end(), request.holdMs ?? 1500).unref();
    };
    const pump = () => {
      while (sent < limit && !socket.destroyed) {
        if (isAnswered) return finish();
        const n = Math.min(filler.length, limit - sent);
        const piece = body ? body.subarray(sent, sent + n) : filler.subarray(0, n);
        sent += n;
        const isFlowing = socket.write(
          request.chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece,
        );
        if (!isFlowing) {
          socket.once('drain', pump);
          return;
        }
      }
      finish();
    };
    pump();
  });
}

/** A JSON text with `depth` nested arrays at `field` of an otherwise ordinary object (built as text: too deep to stringify). */
export function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}
