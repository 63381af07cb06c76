import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An OpenAI-wire upstream whose errors carry what must never reach a caller: the channel key it was
 * sent (echoed as providers do: `Incorrect API key provided: sk-proj-…`), internal URLs and IP:port.
 * The behaviour is chosen by the channel key's prefix:
 *   echo-401 / echo-403 / echo-429 / echo-500 / echo-503 / echo-400 → that status, the key and addresses in the body
 *   echo-stream → a streamed answer whose second event is an error carrying the key and an address
 */
export interface HostileUpstream {
  url: string;
  close(): Promise<void>;
}

/** An internal address the upstream puts in its errors (as `connect ECONNREFUSED …` would). */
export const internalAddress = '10.20.30.40:3849';
export const internalUrl = 'http://llm-backend.corp.internal:8443/v1/chat';

const keyOf = (request: IncomingMessage) => String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');

function errorBody(status: number, key: string): string {
  const echoed = `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`;
  const messages: Record<number, string> = {
    400: `Invalid value for 'temperature': must be at most 2 (key ${key}, backend ${internalUrl}, node ${internalAddress})`,
    401: echoed,
    403: `Key ${key} is not allowed from ${internalAddress}`,
    429: `Rate limit reached for ${key} on ${internalUrl}`,
    500: `connect ECONNREFUSED ${internalAddress} (authorization: Bearer ${key})`,
    503: `upstream ${internalUrl} unavailable, Bearer ${key}`,
  };
  const code = status === 401 ? 'invalid_api_key' : status === 400 ? 'invalid_value' : null;
  return JSON.stringify({
    error: { message: messages[status] ?? echoed, type: status === 400 ? 'invalid_request_error' : 'server_error', param: null, code },
  });
}

export async function startHostileUpstream(): Promise<HostileUpstream> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const key = keyOf(request);
      const match = /^sk-proj-echo(\d{3})/.exec(key);
      if (match) {
        response.writeHead(Number(match[1]), { 'content-type': 'application/json' });
        response.end(errorBody(Number(match[1]), key));
        return;
      }
      if (key.startsWith('sk-proj-stream') && request.url?.endsWith('/responses')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', delta: 'Hello' })}\n\n`,
        );
        response.end(
          `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message: `Bearer ${key} failed at ${internalAddress} (${internalUrl})` })}\n\n`,
        );
        return;
      }
      if (key.startsWith('sk-proj-stream')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = {
          id: 'chatcmpl-h',
          object: 'chat.completion.chunk',
          created: 1,
          model: 'm',
          choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: null }],
        };
        response.write(`data: ${JSON.stringify(chunk)}\n\n`);
        response.end(
          `data: ${JSON.stringify({ error: { message: `Bearer ${key} failed at ${internalAddress} (${internalUrl})`, type: 'server_error', code: 'internal' } })}\n\n`,
        );
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nobody listens on (a refused connection). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
