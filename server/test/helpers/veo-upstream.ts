import http from 'node:http';
import { listenLocal, sendJson } from './local-http.js';

/**
 * Google's Veo on the Gemini API, as a local server: `POST /v1beta/models/{model}:predictLongRunning`
 * answers an operation name; `GET /v1beta/{name}` answers `done: false` until the operation has been
 * asked `pollsToFinish` times, then the generated video (or, for an operation the test marked to fail,
 * an error); `GET /v1beta/files/{id}:download?alt=media` answers 302 to a second server, the storage,
 * on another origin, which serves the bytes. Every request's headers are kept, so a test sees where
 * the key went. All three answer 403 without the key (the storage needs none).
 */
export interface VeoUpstream {
  url: string;
  storageUrl: string;
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: any }>;
  storageRequests: Array<{ path: string; headers: http.IncomingHttpHeaders }>;
  /** Operation ids (`op1`, …) that end with an error. */
  failing: Set<string>;
  /** Operation ids whose video URI the test chose (a hostile or foreign one). */
  uris: Map<string, string>;
  pollsToFinish: number;
  /** The bytes of video `f{n}`. */
  bytesOf(n: number): Buffer;
  close(): Promise<void>;
}

/**
 * Bytes as a storage service serves them (Cloud Storage, a CDN): `accept-ranges: bytes`, and one
 * `Range: bytes=a-b` / `bytes=a-` / `bytes=-n` answered 206 with its Content-Range, or 416 past the end.
 */
function serveBytes(req: http.IncomingMessage, res: http.ServerResponse, bytes: Buffer): void {
  const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  if (!range || (range[1] === '' && range[2] === '')) {
    res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes.length, 'accept-ranges': 'bytes' });
    return void res.end(bytes);
  }
  const start = range[1] === '' ? Math.max(0, bytes.length - Number(range[2])) : Number(range[1]);
  const end = range[1] === '' || range[2] === '' ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
  if (start >= bytes.length || start > end) {
    res.writeHead(416, { 'content-range': `bytes */${bytes.length}` });
    return void res.end();
  }
  res.writeHead(206, {
    'content-type': 'video/mp4',
    'content-length': end - start + 1,
    'content-range': `bytes ${start}-${end}/${bytes.length}`,
    'accept-ranges': 'bytes',
  });
  res.end(bytes.subarray(start, end + 1));
}

export async function startVeoUpstream(key: string): Promise<VeoUpstream> {
  const bytesOf = (n: number) => Buffer.from(`\u0000\u0000\u0000\u0018ftypmp42 video ${n}`.repeat(64));
  const storageRequests: VeoUpstream['storageRequests'] = [];
  const storage = http.createServer((req, res) => {
    storageRequests.push({ path: req.url ?? '', headers: req.headers });
    const n = Number(/f(\d+)\.mp4/.exec(req.url ?? '')?.[1]);
    if (!n) return void res.writeHead(404).end();
    serveBytes(req, res, bytesOf(n));
  });
  const storageUrl = await listenLocal(storage);
  const polls = new Map<string, number>();
  const state = { requests: [] as VeoUpstream['requests'], failing: new Set<string>(), uris: new Map<string, string>(), pollsToFinish: 2 };
  let operations = 0;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const path = req.url ?? '';
      const text = Buffer.concat(parts).toString('utf8');
      state.requests.push({ method: req.method ?? '', path, headers: req.headers, body: text ? JSON.parse(text) : null });
      if (req.headers['x-goog-api-key'] !== key)
        return sendJson(res, 403, { error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' } });
      const submit = /^\/v1beta\/models\/([\w.-]+):predictLongRunning$/.exec(path);
      if (req.method === 'POST' && submit) {
        operations += 1;
        return sendJson(res, 200, { name: `models/${submit[1]}/operations/op${operations}` });
      }
      const poll = /^\/v1beta\/(models\/[\w.-]+\/operations\/(op(\d+)))$/.exec(path);
      if (req.method === 'GET' && poll) {
        const [, name, id, n] = poll;
        const count = (polls.get(id!) ?? 0) + 1;
        polls.set(id!, count);
        if (count < state.pollsToFinish) return sendJson(res, 200, { name, done: false });
        if (state.failing.has(id!))
          return sendJson(res, 200, { name, done: true, error: { code: 3, message: 'The prompt was blocked by the safety filter.' } });
        return sendJson(res, 200, {
          name,
          done: true,
          response: {
            '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse',
            generateVideoResponse: {
              generatedSamples: [{ video: { uri: state.uris.get(id!) ?? `${url}/v1beta/files/f${n}:download?alt=media` } }],
            },
          },
        });
      }
      const file = /^\/v1beta\/files\/f(\d+):download\?alt=media$/.exec(path);
      if (req.method === 'GET' && file) {
        res.writeHead(302, { location: `${storageUrl}/bucket/f${file[1]}.mp4?signature=abc` });
        return void res.end();
      }
      sendJson(res, 404, { error: { code: 404, message: `unknown path ${path}`, status: 'NOT_FOUND' } });
    });
  });
  const url = await listenLocal(server);
  return Object.assign(state, {
    url,
    storageUrl,
    storageRequests,
    bytesOf,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => storage.close(() => resolve()));
    },
  });
}
