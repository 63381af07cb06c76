import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { listenLocal, sendJson } from './local-http.js';

/**
 * Kling's video API as a local server. Every API request must carry `Authorization: Bearer <JWT>`
 * signed HS256 with the secret key, issued by the access key and valid now (`nbf` ≤ now < `exp`);
 * anything else answers 401 (code 1004), as Kling does. `POST /v1/videos/{text2video|image2video}`
 * answers a task id (`k{n}`), or, for a prompt containing REFUSE, `code` 1301 in a 200;
 * `GET /v1/videos/{endpoint}/{id}` answers `processing` until the task has been asked `pollsToFinish`
 * times, then `succeed` with a URL on a second server, the CDN (another origin; it needs no
 * credential), or `failed` for a task the test marked; `GET /v1/videos/text2video?pageNum…` lists
 * no task. Every request's headers (and its decoded token) are kept.
 */
export interface KlingUpstream {
  url: string;
  cdnUrl: string;
  requests: Array<{
    method: string;
    path: string;
    headers: http.IncomingHttpHeaders;
    body: any;
    token: Record<string, unknown> | null;
    isAuthorized: boolean;
  }>;
  cdnRequests: Array<{ path: string; headers: http.IncomingHttpHeaders }>;
  /** Task ids (`k1`, …) that end failed. */
  failing: Set<string>;
  pollsToFinish: number;
  /** Where finished videos are: the CDN (default), or the API's own host (its `/kcdn/` path needs no token either). */
  videoHost: 'cdn' | 'api';
  /** The bytes of video `k{n}`. */
  bytesOf(n: number): Buffer;
  close(): Promise<void>;
}

/** The token's payload when it is a JWT signed HS256 with the secret; null otherwise. */
function verifiedPayload(authorization: string | undefined, secretKey: string): Record<string, unknown> | null {
  const match = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(authorization ?? '');
  if (!match) return null;
  const [, header, payload, signature] = match;
  const expected = createHmac('sha256', secretKey).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const head = JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (head.alg !== 'HS256' || head.typ !== 'JWT') return null;
    return JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

export async function startKlingUpstream(accessKey: string, secretKey: string): Promise<KlingUpstream> {
  const bytesOf = (n: number) => Buffer.from(`\u0000\u0000\u0000\u0018ftypmp42 kling ${n}`.repeat(64));
  const cdnRequests: KlingUpstream['cdnRequests'] = [];
  const serveVideo = (req: http.IncomingMessage, res: http.ServerResponse) => {
    cdnRequests.push({ path: req.url ?? '', headers: req.headers });
    const n = Number(/\/k(\d+)\.mp4/.exec(req.url ?? '')?.[1]);
    if (!n) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'video/mp4' });
    res.end(bytesOf(n));
  };
  const cdn = http.createServer(serveVideo);
  const cdnUrl = await listenLocal(cdn);
  const polls = new Map<string, number>();
  const state = {
    requests: [] as KlingUpstream['requests'],
    failing: new Set<string>(),
    pollsToFinish: 2,
    videoHost: 'cdn' as KlingUpstream['videoHost'],
  };
  let tasks = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url?.startsWith('/kcdn/')) return serveVideo(req, res);
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const path = req.url ?? '';
      const text = Buffer.concat(parts).toString('utf8');
      const token = verifiedPayload(req.headers.authorization, secretKey);
      const now = Math.floor(Date.now() / 1000);
      const isAuthorized =
        token !== null &&
        token.iss === accessKey &&
        typeof token.exp === 'number' &&
        token.exp > now &&
        typeof token.nbf === 'number' &&
        token.nbf <= now;
      state.requests.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
        token,
        isAuthorized,
      });
      const requestId = `req-${state.requests.length}`;
      if (!isAuthorized) return sendJson(res, 401, { code: 1004, message: 'Authorization is invalid', request_id: requestId });
      const submit = /^\/v1\/videos\/(text2video|image2video)$/.exec(path);
      if (req.method === 'POST' && submit) {
        const body = JSON.parse(text) as { prompt?: string };
        if (body.prompt?.includes('REFUSE'))
          return sendJson(res, 200, { code: 1301, message: 'The content failed the safety review', request_id: requestId });
        tasks += 1;
        return sendJson(res, 200, {
          code: 0,
          message: 'SUCCEED',
          request_id: requestId,
          data: { task_id: `k${tasks}`, task_status: 'submitted', created_at: Date.now(), updated_at: Date.now() },
        });
      }
      if (req.method === 'GET' && /^\/v1\/videos\/text2video\?pageNum=\d+&pageSize=\d+$/.test(path))
        return sendJson(res, 200, { code: 0, message: 'SUCCEED', request_id: requestId, data: [] });
      const query = /^\/v1\/videos\/(text2video|image2video)\/(k(\d+))$/.exec(path);
      if (req.method === 'GET' && query) {
        const [, , id, n] = query;
        if (Number(n) > tasks) return sendJson(res, 404, { code: 1203, message: 'task not found', request_id: requestId });
        const count = (polls.get(id!) ?? 0) + 1;
        polls.set(id!, count);
        const data: Record<string, unknown> = { task_id: id, created_at: Date.now(), updated_at: Date.now() };
        if (count < state.pollsToFinish)
          return sendJson(res, 200, { code: 0, message: 'SUCCEED', request_id: requestId, data: { ...data, task_status: 'processing' } });
        if (state.failing.has(id!))
          return sendJson(res, 200, {
            code: 0,
            message: 'SUCCEED',
            request_id: requestId,
            data: { ...data, task_status: 'failed', task_status_msg: 'The image failed the content review.' },
          });
        return sendJson(res, 200, {
          code: 0,
          message: 'SUCCEED',
          request_id: requestId,
          data: {
            ...data,
            task_status: 'succeed',
            task_status_msg: '',
            task_result: {
              videos: [{ id: `v${n}`, url: `${state.videoHost === 'api' ? url : cdnUrl}/kcdn/k${n}.mp4?sign=abc`, duration: '5' }],
            },
          },
        });
      }
      sendJson(res, 404, { code: 1200, message: `unknown path ${path}`, request_id: requestId });
    });
  });
  const url = await listenLocal(server);
  return Object.assign(state, {
    url,
    cdnUrl,
    cdnRequests,
    bytesOf,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => cdn.close(() => resolve()));
    },
  });
}
