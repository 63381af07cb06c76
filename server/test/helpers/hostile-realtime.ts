import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';

/**
 * A realtime upstream that misbehaves on purpose; the channel key's prefix picks how:
 *   trickle-…  answers the handshake 503 and trickles its body one byte every 100 ms, never ending
 *   reason-…   accepts, then closes with 4000 and a reason echoing the channel key and an address
 *   deaf-…     accepts (handshake written by hand), sends `session.created`, then answers nothing,
 *              not even a close frame: only the gateway can end the connection
 *   anything else accepts and plays what the client scripts: a `mock.send` event
 *              `{ frames: string[], repeat?: number }` makes it send those text frames, `repeat` times
 * `upgrades` counts the upgrades it accepted; `ended` has one promise per connection, resolved when it closes.
 */
export interface HostileRealtime {
  url: string;
  upgrades: number;
  ended: Array<Promise<void>>;
  close(): Promise<void>;
}

const keyOf = (req: http.IncomingMessage) => String(req.headers.authorization ?? '').replace(/^Bearer /, '');

function trickle(socket: Duplex): void {
  socket.write('HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
  const timer = setInterval(() => socket.write('1\r\n \r\n'), 100);
  socket.on('close', () => clearInterval(timer));
  socket.on('error', () => clearInterval(timer));
}

function deafAccept(req: http.IncomingMessage, socket: Duplex): void {
  const accept = createHash('sha1')
    .update(`${String(req.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
    .digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: ${accept}\r\n\r\n`);
  const payload = Buffer.from(JSON.stringify({ type: 'session.created', event_id: 'event_1', session: { id: 'sess_deaf' } }));
  socket.write(Buffer.concat([Buffer.from([0x81, payload.length]), payload]));
  // Reads (so it sees the gateway hang up) but never answers, a close frame included.
  socket.on('data', () => undefined);
  socket.on('end', () => socket.destroy());
  socket.on('error', () => undefined);
}

export async function startHostileRealtime(): Promise<HostileRealtime> {
  const sockets = new Set<Duplex>();
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const state: HostileRealtime = {
    url: '',
    upgrades: 0,
    ended: [],
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('upgrade', (req, socket, head) => {
    sockets.add(socket);
    state.ended.push(new Promise((resolve) => socket.once('close', () => resolve())));
    const key = keyOf(req);
    if (key.startsWith('trickle-')) return trickle(socket);
    state.upgrades += 1;
    if (key.startsWith('deaf-')) return deafAccept(req, socket);
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => undefined);
      if (key.startsWith('reason-')) return ws.close(4000, `Incorrect API key provided: ${key} at 10.20.30.40:3849`);
      ws.send(JSON.stringify({ type: 'session.created', event_id: 'event_1', session: { id: 'sess_h' } }));
      ws.on('message', (data: Buffer, isBinary) => {
        if (isBinary) return;
        let event: { type?: string; frames?: string[]; repeat?: number };
        try {
          event = JSON.parse(data.toString('utf8')) as typeof event;
        } catch {
          return;
        }
        if (event.type !== 'mock.send') return;
        for (let i = 0; i < (event.repeat ?? 1); i += 1) for (const frame of event.frames ?? []) ws.send(frame);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** A `response.done` server event carrying `usage` as given (any JSON, hostile values included). */
export const responseDone = (usage: unknown, id = 'resp_h') =>
  JSON.stringify({
    type: 'response.done',
    event_id: `event_${id}`,
    response: { id, object: 'realtime.response', status: 'completed', usage },
  });
