import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFixture } from '../providers/helpers/fixture-upstream.js';

/**
 * A local Baidu speaking both wires, with real key checks:
 *   type 15: POST /oauth/2.0/token issues `tok-<n>` for the API key/secret pair `goodKey` (else 401
 *   invalid_client); wenxinworkshop chat/embeddings answer HTTP 200 `{error_code:110}` for a token it
 *   did not issue (or revoked), else the recorded answers (`stream: true` → the recorded SSE frames).
 *   type 46: /v2/chat/completions wants `Bearer <v2Token>`, else 401 with Qianfan's error body.
 */
export interface BaiduUpstreamRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  json: any;
}

export interface BaiduUpstream {
  url: string;
  requests: BaiduUpstreamRequest[];
  /** Tokens issued so far count as invalid from now on (as after an expiry on Baidu's side). */
  revokeTokens(): void;
  close(): Promise<void>;
}

export const baiduGoodKey = { apiKey: 'ak-good', secretKey: 'sk-good' };
export const qianfanGoodToken = 'bce-v3/ALTAK-good/s3cr3t';

type Reply = { status: number; contentType: string; body: string };
const json = (body: string, status = 200): Reply => ({ status, contentType: 'application/json', body });

export async function startBaiduUpstream(): Promise<BaiduUpstream> {
  const requests: BaiduUpstreamRequest[] = [];
  const validTokens = new Set<string>();
  let issued = 0;

  const answer = (url: URL, headers: http.IncomingHttpHeaders, body: any): Reply => {
    if (url.pathname === '/oauth/2.0/token') {
      const params = url.searchParams;
      const isGood =
        params.get('grant_type') === 'client_credentials' &&
        params.get('client_id') === baiduGoodKey.apiKey &&
        params.get('client_secret') === baiduGoodKey.secretKey;
      if (!isGood) return json(readFixture('baidu', 'token-error.json'), 401);
      const token = `tok-${++issued}`;
      validTokens.add(token);
      return json(JSON.stringify({ access_token: token, expires_in: 2592000 }));
    }
    if (url.pathname.startsWith('/rpc/2.0/ai_custom/v1/wenxinworkshop/')) {
      if (!validTokens.has(url.searchParams.get('access_token') ?? ''))
        return json('{"error_code":110,"error_msg":"Access token invalid or no longer valid"}');
      if (url.pathname.includes('/embeddings/')) return json(readFixture('baidu', 'embeddings.json'));
      if (body?.stream === true)
        return { status: 200, contentType: 'text/event-stream', body: readFixture('baidu', 'chat-stream.chunks.txt') };
      return json(readFixture('baidu', 'chat.json'));
    }
    if (url.pathname === '/v2/chat/completions') {
      if (headers.authorization !== `Bearer ${qianfanGoodToken}`) return json(readFixture('baidu-v2', 'error-auth.json'), 401);
      if (body?.stream === true)
        return { status: 200, contentType: 'text/event-stream', body: readFixture('baidu-v2', 'chat-stream.chunks.txt') };
      return json(readFixture('baidu-v2', 'chat.json'));
    }
    return json('{"error_code":3,"error_msg":"Unsupported openapi method"}', 404);
  };

  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      let body: any = null;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        body = null;
      }
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, json: body });
      const reply = answer(new URL(req.url ?? '/', 'http://baidu.local'), req.headers, body);
      res.writeHead(reply.status, { 'content-type': reply.contentType });
      // Streams go out in small pieces so readers see frames split across chunks.
      const bytes = Buffer.from(reply.body, 'utf8');
      for (let at = 0; at < bytes.length; at += 41) res.write(bytes.subarray(at, at + 41));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    revokeTokens: () => validTokens.clear(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
