import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-wire upstream whose answers an outside party controls per channel key, so a test
 * can make an upstream fail and come back:
 *   'ok'      → a chat completion;
 *   'revoked' → 401 invalid_api_key (a key failure: auto-disables an auto_ban channel);
 *   'down'    → 500 (not a key failure: never disables, never passes).
 * A key may also be given a delay before its chat answers (a test still in flight).
 * `/v1/dashboard/billing/subscription` and `/usage` answer the key's balance (default US$50).
 * Every request is recorded with its time and key.
 */
export type UpstreamMode = 'ok' | 'revoked' | 'down';

export interface FlakyRequest {
  at: number;
  key: string;
  path: string;
}

export interface FlakyUpstream {
  url: string;
  requests: FlakyRequest[];
  setMode(key: string, mode: UpstreamMode): void;
  setBalance(key: string, usd: number): void;
  setDelay(key: string, ms: number): void;
  /** Chat requests (channel tests) sent with this key. */
  testsOf(key: string): FlakyRequest[];
  close(): Promise<void>;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startFlakyUpstream(): Promise<FlakyUpstream> {
  const modes = new Map<string, UpstreamMode>();
  const balances = new Map<string, number>();
  const delays = new Map<string, number>();
  const requests: FlakyRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A failure (a body that is not JSON) is answered with a 500, not lost as an unhandled rejection.
    req.on('end', () => {
      (async () => {
        const key = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
        const path = (req.url ?? '').split('?')[0]!;
        requests.push({ at: Date.now(), key, path });
        if (path.endsWith('/dashboard/billing/subscription'))
          return sendJson(res, 200, { object: 'billing_subscription', hard_limit_usd: balances.get(key) ?? 50 });
        if (path.endsWith('/dashboard/billing/usage')) return sendJson(res, 200, { object: 'list', total_usage: 0 });
        if (!path.endsWith('/chat/completions'))
          return sendJson(res, 404, { error: { message: 'not found', type: 'invalid_request_error', code: null } });
        const mode = modes.get(key) ?? 'ok';
        const delay = delays.get(key) ?? 0;
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        if (mode === 'revoked')
          return sendJson(res, 401, {
            error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
          });
        if (mode === 'down') return sendJson(res, 500, { error: { message: 'upstream is down', type: 'server_error', code: null } });
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { model?: string };
        sendJson(res, 200, {
          id: 'chatcmpl-flaky',
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? 'gpt-4o-mini',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 8, completion_tokens: 1, total_tokens: 9 },
        });
      })().catch((error: unknown) => sendJson(res, 500, { error: { message: String(error), type: 'server_error', code: null } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMode: (key, mode) => void modes.set(key, mode),
    setBalance: (key, usd) => void balances.set(key, usd),
    setDelay: (key, ms) => void delays.set(key, ms),
    testsOf: (key) => requests.filter((request) => request.key === key && request.path.endsWith('/chat/completions')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
