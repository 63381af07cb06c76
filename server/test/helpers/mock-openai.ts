import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local upstream speaking OpenAI's wire format. Behaviour is chosen by the API key the gateway
 * sends (the channel key), so one mock serves healthy and failing channels:
 *   fail-500 / fail-502 / fail-504 / fail-429 / fail-400  → that status with an OpenAI error body
 *   fail-401 → 401 invalid_api_key;  fail-quota → 429 "You exceeded your current quota"
 *   no-usage → answers without usage (stream and non-stream);  slow → 300 ms before answering
 * Usage is deterministic: prompt_tokens = 7 + characters of the last message / 4 (rounded up),
 * completion_tokens = number of streamed pieces; cached_tokens = 4 when a message says "cache".
 * `stop` works as OpenAI's: up to 4 sequences (none on o-series and gpt-5 models: a 400), a streamed
 * answer ends before the first match with finish_reason "stop", and the pieces generated up to the
 * match are the completion tokens.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  rawBody: Buffer;
}

export interface MockOpenAi {
  url: string;
  requests: RecordedRequest[];
  /** Requests whose Authorization carried this key. */
  requestsFor(key: string): RecordedRequest[];
  close(): Promise<void>;
}

const words = ['Hello', ' from', ' the', ' mock', ' upstream', '.'];

function errorBody(message: string, type: string, code: string | null) {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

function promptTokensOf(body: any): number {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages[messages.length - 1];
  const text = typeof last?.content === 'string' ? last.content : typeof body?.prompt === 'string' ? body.prompt : '';
  return 7 + Math.ceil(text.length / 4);
}

const cachedOf = (body: any) => (JSON.stringify(body?.messages ?? '').includes('cache') ? 4 : 0);

function sendJson(res: http.ServerResponse, status: number, payload: string) {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function failure(key: string): { status: number; body: string } | null {
  if (key === 'fail-401')
    return { status: 401, body: errorBody('Incorrect API key provided: sk-****.', 'invalid_request_error', 'invalid_api_key') };
  if (key === 'fail-quota')
    return {
      status: 429,
      body: errorBody(
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        'insufficient_quota',
      ),
    };
  const match = /^fail-(\d{3})$/.exec(key);
  if (match) return { status: Number(match[1]), body: errorBody(`mock failure ${match[1]}`, 'server_error', null) };
  return null;
}

/** The request's stop sequences, or an OpenAI error message when OpenAI would refuse them. */
function stopsOf(body: any): string[] | string {
  const stops =
    typeof body.stop === 'string'
      ? [body.stop]
      : Array.isArray(body.stop)
        ? body.stop.filter((stop: unknown) => typeof stop === 'string' && stop !== '')
        : [];
  if (stops.length > 0 && /^(o1|o3|o4|gpt-5)/.test(String(body.model)))
    return "Unsupported parameter: 'stop' is not supported with this model.";
  if (stops.length > 4)
    return `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${stops.length} instead.`;
  return stops;
}

async function streamChat(res: http.ServerResponse, body: any, isChat: boolean, withUsage: boolean, stops: string[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = 'chatcmpl-mock';
  const created = Math.floor(Date.now() / 1000);
  const pieces = Number.isInteger(body.max_tokens) && body.max_tokens > words.length ? body.max_tokens : words.length;
  const object = isChat ? 'chat.completion.chunk' : 'text_completion';
  const chunkOf = (text: string, finish: string | null) =>
    isChat
      ? { id, object, created, model: body.model, choices: [{ index: 0, delta: { content: text }, finish_reason: finish }] }
      : { id, object, created, model: body.model, choices: [{ index: 0, text, finish_reason: finish }] };
  if (isChat)
    res.write(
      `data: ${JSON.stringify({ id, object, created, model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`,
    );
  res.write(': keep-alive comment\n\n');
  // The text sent so far, kept only while there are stop sequences to look for (long streams stay flat).
  let text = '';
  let generated = 0;
  for (let i = 0; i < pieces; i += 1) {
    const piece = words[i % words.length]!;
    generated += 1;
    if (stops.length > 0) {
      const at = Math.min(
        ...stops.map((stop) => (text + piece).indexOf(stop, Math.max(0, text.length - stop.length + 1))).filter((index) => index >= 0),
      );
      if (Number.isFinite(at)) {
        // A stop sequence: the text before it goes out, the sequence does not, and the answer ends.
        if (at > text.length) res.write(`data: ${JSON.stringify(chunkOf(piece.slice(0, at - text.length), null))}\n\n`);
        break;
      }
      text += piece;
    }
    const ok = res.write(`data: ${JSON.stringify(chunkOf(piece, null))}\n\n`);
    if (!ok) await new Promise((resolve) => res.once('drain', resolve));
    if (res.destroyed) return;
  }
  res.write(`data: ${JSON.stringify(chunkOf('', 'stop'))}\n\n`);
  if (withUsage && body.stream_options?.include_usage) {
    const prompt = promptTokensOf(body);
    res.write(
      `data: ${JSON.stringify({ id, object, created, model: body.model, choices: [], usage: { prompt_tokens: prompt, completion_tokens: generated, total_tokens: prompt + generated, prompt_tokens_details: { cached_tokens: cachedOf(body) } } })}\n\n`,
    );
  }
  res.end('data: [DONE]\n\n');
}

function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer, key: string) {
  const path = (req.url ?? '').split('?')[0]!;
  const isJson = (req.headers['content-type'] ?? '').includes('json');
  const body: any = isJson && raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {};
  const withUsage = key !== 'no-usage';
  const created = Math.floor(Date.now() / 1000);
  if (path.endsWith('/dashboard/billing/subscription'))
    return sendJson(res, 200, JSON.stringify({ object: 'billing_subscription', hard_limit_usd: 100 }));
  if (path.endsWith('/dashboard/billing/usage')) return sendJson(res, 200, JSON.stringify({ object: 'list', total_usage: 2500 }));
  if (path.endsWith('/models') && req.method === 'GET') {
    return sendJson(
      res,
      200,
      JSON.stringify({
        object: 'list',
        data: ['gpt-4o-mini', 'gpt-4o', 'text-embedding-3-small'].map((id) => ({ id, object: 'model', created, owned_by: 'mock' })),
      }),
    );
  }
  if (path.endsWith('/chat/completions') || path.endsWith('/completions')) {
    const isChat = path.endsWith('/chat/completions');
    const stops = stopsOf(body);
    if (typeof stops === 'string') return sendJson(res, 400, errorBody(stops, 'invalid_request_error', null));
    if (body.stream) return void streamChat(res, body, isChat, withUsage, stops);
    const prompt = promptTokensOf(body);
    const whole = words.join('');
    const at = Math.min(...stops.map((stop) => whole.indexOf(stop)).filter((index) => index >= 0));
    const content = Number.isFinite(at) ? whole.slice(0, at) : whole;
    // Pieces generated: up to the one in which the stop sequence ended.
    const generated = Number.isFinite(at) ? words.findIndex((_, i) => words.slice(0, i + 1).join('').length > at) + 1 : words.length;
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: generated,
      total_tokens: prompt + generated,
      prompt_tokens_details: { cached_tokens: cachedOf(body) },
    };
    const choice = isChat
      ? { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }
      : { index: 0, text: content, logprobs: null, finish_reason: 'stop' };
    const answer = {
      id: 'chatcmpl-mock',
      object: isChat ? 'chat.completion' : 'text_completion',
      created,
      model: body.model,
      choices: [choice],
      ...(withUsage ? { usage } : {}),
    };
    return sendJson(res, 200, JSON.stringify(answer));
  }
  if (path.endsWith('/embeddings')) {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const tokens = inputs.reduce((sum: number, text: unknown) => sum + Math.ceil(String(text).length / 4), 0);
    return sendJson(
      res,
      200,
      JSON.stringify({
        object: 'list',
        model: body.model,
        data: inputs.map((_: unknown, index: number) => ({ object: 'embedding', index, embedding: [0.1, 0.2, 0.3, 0.4] })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      }),
    );
  }
  if (path.endsWith('/moderations')) {
    return sendJson(
      res,
      200,
      JSON.stringify({ id: 'modr-mock', model: body.model, results: [{ flagged: false, categories: {}, category_scores: {} }] }),
    );
  }
  if (path.endsWith('/images/generations')) {
    const n = body.n ?? 1;
    return sendJson(
      res,
      200,
      JSON.stringify({ created, data: Array.from({ length: n }, (_, i) => ({ url: `https://images.example/${i}.png` })) }),
    );
  }
  if (path.endsWith('/audio/speech')) {
    const audio = Buffer.from('ID3mock-audio-bytes');
    res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
    return void res.end(audio);
  }
  if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations')) {
    const text = raw.toString('latin1');
    const model = /name="model"\r\n\r\n([^\r]*)/.exec(text)?.[1] ?? '';
    return sendJson(res, 200, JSON.stringify({ text: `transcribed by ${model}: hello world` }));
  }
  if (path.endsWith('/rerank')) {
    const documents: unknown[] = body.documents ?? [];
    return sendJson(
      res,
      200,
      JSON.stringify({
        results: documents.map((document, index) => ({ index, relevance_score: 1 - index / 10, document })),
        usage: { total_tokens: 5 + documents.length },
      }),
    );
  }
  sendJson(res, 404, errorBody(`Unknown path ${path}`, 'invalid_request_error', 'not_found'));
}

export async function startMockOpenAi(): Promise<MockOpenAi> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const key = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      let body: any = null;
      try {
        body = (req.headers['content-type'] ?? '').includes('json') ? JSON.parse(raw.toString('utf8')) : null;
      } catch {
        body = null;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, rawBody: raw });
      const failed = failure(key);
      const run = () => (failed ? sendJson(res, failed.status, failed.body) : handle(req, res, raw, key));
      if (key === 'slow') setTimeout(run, 300);
      else run();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestsFor: (key) => requests.filter((request) => request.headers.authorization === `Bearer ${key}`),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
