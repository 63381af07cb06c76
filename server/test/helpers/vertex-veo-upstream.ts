import http from 'node:http';
import { listenLocal, sendJson } from './local-http.js';

/**
 * Veo on Vertex AI, as a local server that also plays Google's OAuth token endpoint and Cloud Storage:
 * - `POST /token` (the service account's token_uri) answers an access token for the JWT bearer grant;
 * - `POST /v1/projects/{p}/locations/{r}/publishers/google/models/{m}:predictLongRunning` answers
 *   `projects/{p}/locations/{r}/publishers/google/models/{m}/operations/op{n}`;
 * - `POST …/models/{m}:fetchPredictOperation {operationName}` answers `done: false` until the operation
 *   has been asked `pollsToFinish` times, then `response.videos[{gcsUri}]` under the request's storageUri
 *   (an error for an operation marked failing, inline bytes for one marked inline);
 * - `GET /storage/v1/b/{bucket}/o/{object}?alt=media` serves the bytes of `{prefix}op{n}/sample_0.mp4`,
 *   and answers 302 to `foreignUrl` for an object named `moved`.
 * Everything but the token endpoint answers 403 without the token; every request is kept, with its headers.
 */
export interface VertexVeoUpstream {
  url: string;
  /** Another origin: where a storage redirect points. */
  foreignUrl: string;
  token: string;
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: any }>;
  foreignRequests: Array<{ path: string; headers: http.IncomingHttpHeaders }>;
  failing: Set<string>;
  inline: Set<string>;
  /** Operation ids whose gcsUri the test chose. */
  uris: Map<string, string>;
  pollsToFinish: number;
  bytesOf(n: number): Buffer;
  close(): Promise<void>;
}

export async function startVertexVeoUpstream(): Promise<VertexVeoUpstream> {
  const token = 'ya29.vertex-veo-token';
  const bytesOf = (n: number) => Buffer.from(`\u0000\u0000\u0000\u0018ftypmp42 vertex video ${n}`.repeat(64));
  const foreignRequests: VertexVeoUpstream['foreignRequests'] = [];
  const foreign = http.createServer((req, res) => {
    foreignRequests.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'video/mp4' });
    res.end(bytesOf(99));
  });
  const foreignUrl = await listenLocal(foreign);
  const polls = new Map<string, number>();
  const storageUris = new Map<string, string>();
  const state = {
    requests: [] as VertexVeoUpstream['requests'],
    failing: new Set<string>(),
    inline: new Set<string>(),
    uris: new Map<string, string>(),
    pollsToFinish: 2,
  };
  let operations = 0;
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const path = req.url ?? '';
      const text = Buffer.concat(parts).toString('utf8');
      let body: any = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        body = text;
      }
      state.requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      if (req.method === 'POST' && path === '/token') {
        if (!text.includes('grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer'))
          return sendJson(res, 400, { error: 'invalid_grant' });
        return sendJson(res, 200, { access_token: token, expires_in: 3600, token_type: 'Bearer' });
      }
      if (req.headers.authorization !== `Bearer ${token}`)
        return sendJson(res, 403, { error: { code: 403, message: 'Permission denied.', status: 'PERMISSION_DENIED' } });
      const submit = /^\/v1\/(projects\/[\w-]+\/locations\/[\w-]+\/publishers\/google\/models\/[\w.-]+):predictLongRunning$/.exec(path);
      if (req.method === 'POST' && submit) {
        operations += 1;
        storageUris.set(`op${operations}`, String(body?.parameters?.storageUri ?? ''));
        return sendJson(res, 200, { name: `${submit[1]}/operations/op${operations}` });
      }
      const poll = /^\/v1\/(projects\/[\w-]+\/locations\/[\w-]+\/publishers\/google\/models\/[\w.-]+):fetchPredictOperation$/.exec(path);
      if (req.method === 'POST' && poll) {
        const name = String(body?.operationName ?? '');
        const id = /\/operations\/(op(\d+))$/.exec(name);
        if (!name.startsWith(`${poll[1]}/operations/`) || !id)
          return sendJson(res, 404, { error: { code: 404, message: 'Operation not found.', status: 'NOT_FOUND' } });
        const count = (polls.get(id[1]!) ?? 0) + 1;
        polls.set(id[1]!, count);
        if (count < state.pollsToFinish) return sendJson(res, 200, { name, done: false });
        if (state.failing.has(id[1]!))
          return sendJson(res, 200, {
            name,
            done: true,
            error: { code: 3, message: 'The prompt could not be submitted: it violates the usage guidelines.' },
          });
        const response = { '@type': 'type.googleapis.com/cloud.ai.large_models.vision.GenerateVideoResponse', raiMediaFilteredCount: 0 };
        if (state.inline.has(id[1]!))
          return sendJson(res, 200, {
            name,
            done: true,
            response: { ...response, videos: [{ bytesBase64Encoded: bytesOf(Number(id[2])).toString('base64'), mimeType: 'video/mp4' }] },
          });
        const gcsUri = state.uris.get(id[1]!) ?? `${storageUris.get(id[1]!)}${id[1]}/sample_0.mp4`;
        return sendJson(res, 200, { name, done: true, response: { ...response, videos: [{ gcsUri, mimeType: 'video/mp4' }] } });
      }
      const object = /^\/storage\/v1\/b\/([\w.-]+)\/o\/([^?]+)\?alt=media$/.exec(path);
      if (req.method === 'GET' && object) {
        const name = decodeURIComponent(object[2]!);
        if (name.endsWith('moved')) {
          res.writeHead(302, { location: `${foreignUrl}/elsewhere/moved.mp4` });
          return void res.end();
        }
        const n = Number(/op(\d+)\/sample_0\.mp4$/.exec(name)?.[1]);
        if (!n) return sendJson(res, 404, { error: { code: 404, message: 'No such object.' } });
        res.writeHead(200, { 'content-type': 'video/mp4' });
        return void res.end(bytesOf(n));
      }
      sendJson(res, 404, { error: { code: 404, message: `unknown path ${path}`, status: 'NOT_FOUND' } });
    });
  });
  const url = await listenLocal(server);
  return Object.assign(state, {
    url,
    foreignUrl,
    token,
    foreignRequests,
    bytesOf,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => foreign.close(() => resolve()));
    },
  });
}
