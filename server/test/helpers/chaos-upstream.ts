import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A local upstream speaking OpenAI's chat wire format (stream and non-stream) that misbehaves the way
 * real providers do, chosen per request by a seeded random source so a run can be repeated:
 *   faultRate   → 500 / 502 / 503 / 429 with an OpenAI error body
 *   dropRate    → the connection is destroyed mid-answer (after a few stream events, or half a JSON body)
 *   slowRate    → 100–400 ms before the answer starts
 *   oddUsageRate → usage numbers an upstream should never send: 13.5, 3e9, 1e300, negative, strings, none
 * restart() closes the listener and every connection, then listens again on the same port.
 * Usage of a healthy answer: prompt_tokens = 7 + characters of the last message / 4 (rounded up),
 * completion_tokens = number of streamed pieces (6 unless max_tokens asks for more).
 */
export interface ChaosUpstreamOptions {
  seed?: number;
  faultRate?: number;
  dropRate?: number;
  slowRate?: number;
  oddUsageRate?: number;
  /** Healthy answers carry these usage objects in turn instead (probes of chosen odd cases). */
  fixedUsages?: Array<Record<string, unknown>>;
}

export interface ChaosStats {
  requests: number;
  faults: number;
  drops: number;
  slow: number;
  oddUsage: number;
  /** Answers written to the end (200, with [DONE] for streams). */
  completed: number;
}

export interface ChaosUpstream {
  url: string;
  port: number;
  stats: ChaosStats;
  /** Closes the listener and all connections, waits `downMs`, listens again on the same port. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** mulberry32: a small seeded PRNG, so a failing run can be replayed with the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = ['Hello', ' from', ' the', ' chaos', ' upstream', '.'];
const faultStatuses = [500, 502, 503, 429];

/** Odd usage objects, each one an upstream has been seen (or could be) sending. */
export const oddUsages: Array<{ label: string; usage: Record<string, unknown> | null }> = [
  { label: 'fractional 13.5', usage: { prompt_tokens: 13.5, completion_tokens: 2.25, total_tokens: 15.75 } },
  { label: 'huge 3e9', usage: { prompt_tokens: 3e9, completion_tokens: 6, total_tokens: 3e9 + 6 } },
  { label: 'absurd 1e300', usage: { prompt_tokens: 1e300, completion_tokens: 1e300, total_tokens: 1e300 } },
  { label: 'negative', usage: { prompt_tokens: -50, completion_tokens: -7, total_tokens: -57 } },
  { label: 'strings', usage: { prompt_tokens: '12', completion_tokens: 'six', total_tokens: '18' } },
  { label: 'missing', usage: null },
];

type Plan =
  { kind: 'fault'; status: number } | { kind: 'drop' } | { kind: 'ok'; delayMs: number; usage: Record<string, unknown> | null | 'normal' };

function promptTokensOf(body: any): number {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  return 7 + Math.ceil((typeof last?.content === 'string' ? last.content.length : 0) / 4);
}

function errorBody(status: number): string {
  const message = status === 429 ? 'Rate limit reached for requests' : `The server had an error while processing your request (${status})`;
  return JSON.stringify({ error: { message, type: status === 429 ? 'requests' : 'server_error', param: null, code: null } });
}

export async function startChaosUpstream(options: ChaosUpstreamOptions = {}): Promise<ChaosUpstream> {
  const random = seededRandom(options.seed ?? 11);
  let fixedTurn = 0;
  const stats: ChaosStats = { requests: 0, faults: 0, drops: 0, slow: 0, oddUsage: 0, completed: 0 };

  const plan = (): Plan => {
    const roll = random();
    const fault = options.faultRate ?? 0;
    const drop = options.dropRate ?? 0;
    if (roll < fault) return { kind: 'fault', status: faultStatuses[Math.floor(random() * faultStatuses.length)]! };
    if (roll < fault + drop) return { kind: 'drop' };
    const delayMs = random() < (options.slowRate ?? 0) ? 100 + Math.floor(random() * 300) : 0;
    const isOdd = random() < (options.oddUsageRate ?? 0);
    if (options.fixedUsages?.length) return { kind: 'ok', delayMs, usage: options.fixedUsages[fixedTurn++ % options.fixedUsages.length]! };
    return { kind: 'ok', delayMs, usage: isOdd ? oddUsages[Math.floor(random() * oddUsages.length)]!.usage : 'normal' };
  };

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse, body: any) => {
    stats.requests += 1;
    const chosen = plan();
    if (chosen.kind === 'fault') {
      stats.faults += 1;
      const payload = errorBody(chosen.status);
      res.writeHead(chosen.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      return void res.end(payload);
    }
    const isStream = body?.stream === true;
    const pieces = Number.isInteger(body?.max_tokens) && body.max_tokens > words.length ? Math.min(body.max_tokens, 2000) : words.length;
    const prompt = promptTokensOf(body);
    const usage =
      chosen.kind === 'ok' && chosen.usage !== 'normal'
        ? chosen.usage
        : { prompt_tokens: prompt, completion_tokens: pieces, total_tokens: prompt + pieces };
    if (chosen.kind === 'ok') {
      if (chosen.usage !== 'normal') stats.oddUsage += 1;
      if (chosen.delayMs > 0) {
        stats.slow += 1;
        await sleep(chosen.delayMs);
      }
    } else {
      stats.drops += 1;
    }
    const isDrop = chosen.kind === 'drop';
    const id = 'chatcmpl-chaos';
    const created = Math.floor(Date.now() / 1000);
    const model = body?.model;
    if (!isStream) {
      const content = Array.from({ length: pieces }, (_, i) => words[i % words.length]).join('');
      const payload = JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        ...(usage ? { usage } : {}),
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      if (isDrop) return dropAfter(res, payload.slice(0, payload.length >> 1));
      res.end(payload);
      stats.completed += 1;
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(event({ role: 'assistant', content: '' }, null));
    for (let i = 0; i < pieces; i += 1) {
      if (isDrop && i === 2) return dropAfter(res, '');
      if (res.destroyed) return;
      if (!res.write(event({ content: words[i % words.length] }, null)))
        await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
    if (res.destroyed) return;
    res.write(event({}, 'stop'));
    if (usage && body?.stream_options?.include_usage) {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
    stats.completed += 1;
  };

  let server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const closeServer = (target: http.Server) =>
    new Promise<void>((resolve) => {
      target.close(() => resolve());
      target.closeAllConnections();
    });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stats,
    async restart(downMs = 200) {
      await closeServer(server);
      await sleep(downMs);
      server = createServer(answer);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
    },
    close: () => closeServer(server),
  };
}

/** Writes `text`, lets the bytes leave (destroy() would discard unsent data), then cuts the connection. */
async function dropAfter(res: http.ServerResponse, text: string): Promise<void> {
  await new Promise<void>((resolve) => {
    if (!res.write(text, () => resolve())) res.once('close', () => resolve());
  });
  await sleep(20);
  res.destroy();
}

function createServer(answer: (req: http.IncomingMessage, res: http.ServerResponse, body: any) => Promise<void>): http.Server {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = null;
      }
      if (!(req.url ?? '').split('?')[0]!.endsWith('/chat/completions') || !body) {
        const payload = JSON.stringify({
          error: { message: `Unknown path ${req.url}`, type: 'invalid_request_error', param: null, code: 'not_found' },
        });
        res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
        return void res.end(payload);
      }
      answer(req, res, body).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}
