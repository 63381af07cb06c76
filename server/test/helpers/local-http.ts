import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Starts a test server on a free loopback port; its base URL. */
export async function listenLocal(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Answers a JSON body with a status. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A local server whose open connections are counted: a test sees whether the gateway let them go. */
export interface WatchedServer {
  url: string;
  /** The connections open now. */
  sockets: Set<Socket>;
  close(): Promise<void>;
}

export async function startWatched(handler: http.RequestListener): Promise<WatchedServer> {
  const server = http.createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const url = await listenLocal(server);
  return {
    url,
    sockets,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Answers 200 with `head`, then one `byte` every `everyMs`, never ending: undici's header and body
 * timeouts are idle timers, which this keeps from firing.
 */
export function drip(res: http.ServerResponse, contentType: string, head: string, byte = ' ', everyMs = 50): void {
  res.writeHead(200, { 'content-type': contentType });
  res.write(head);
  const timer = setInterval(() => res.write(byte), everyMs);
  res.on('close', () => clearInterval(timer));
}
