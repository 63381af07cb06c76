import { PassThrough } from 'node:stream';
import WebSocket from 'ws';
import type { SendOptions, UpstreamRequest, UpstreamResponse, UpstreamTransport } from '../types.js';

const handshakeTimeoutMs = 30_000;
const maxFrameBytes = 16 * 1024 * 1024;
const maxErrorBytes = 64 * 1024;

type Body = UpstreamResponse['body'];

/** A readable of the exchange's bytes with the reading helpers undici's bodies have. */
function bodyOf(stream: PassThrough): Body {
  const collect = async (): Promise<Buffer> => {
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(Buffer.from(part as Buffer));
    return Buffer.concat(parts);
  };
  return Object.assign(stream, {
    text: async () => (await collect()).toString('utf8'),
    arrayBuffer: async () => {
      const bytes = await collect();
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
    dump: async () => {
      stream.resume();
    },
  }) as unknown as Body;
}

const isLastFrame = (text: string): boolean => {
  try {
    const header = (JSON.parse(text) as { header?: { status?: unknown; code?: unknown } }).header;
    return header?.status === 2 || (typeof header?.code === 'number' && header.code !== 0);
  } catch {
    return false;
  }
};

/**
 * iFlytek Spark over its signed WebSocket: opens the URL, sends the request frame, and answers
 * like an HTTP response whose body is one NDJSON line per frame (the converter's framing). A
 * refused handshake (401/403) is answered with its status and body, so the adapter's error parser
 * and the key-failure rules see it as for HTTP providers; a connection failure rejects. The abort
 * signal (client gone, idle timeout) closes the socket.
 */
export const sparkTransport: UpstreamTransport = {
  send(request: UpstreamRequest, options: SendOptions): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(request.url, {
        handshakeTimeout: options.headersTimeout || handshakeTimeoutMs,
        perMessageDeflate: false,
        maxPayload: maxFrameBytes,
      });
      const lines = new PassThrough();
      let isOpen = false;
      const onAbort = () => {
        socket.terminate();
        lines.destroy(new Error('aborted'));
        reject(new Error('aborted'));
      };
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => options.signal?.removeEventListener('abort', onAbort);
      socket.once('unexpected-response', (_request, response) => {
        const parts: Buffer[] = [];
        let size = 0;
        response.on('data', (part: Buffer) => {
          if (size < maxErrorBytes) parts.push(part);
          size += part.length;
        });
        response.once('end', () => {
          done();
          const body = new PassThrough();
          body.end(Buffer.concat(parts));
          resolve({ statusCode: response.statusCode ?? 502, headers: response.headers, body: bodyOf(body) });
          socket.terminate();
        });
      });
      socket.once('open', () => {
        isOpen = true;
        socket.send(typeof request.body === 'string' ? request.body : JSON.stringify(request.body));
        resolve({ statusCode: 200, headers: { 'content-type': 'application/x-ndjson' }, body: bodyOf(lines) });
      });
      socket.on('message', (data) => {
        const text = Buffer.isBuffer(data)
          ? data.toString('utf8')
          : Array.isArray(data)
            ? Buffer.concat(data).toString('utf8')
            : Buffer.from(data).toString('utf8');
        lines.write(`${text.replace(/\n/g, ' ')}\n`);
        if (isLastFrame(text)) socket.close();
      });
      socket.once('close', () => {
        done();
        lines.end();
      });
      socket.on('error', (error) => {
        done();
        if (!isOpen) reject(error);
        else lines.destroy(error);
      });
    });
  },
};
